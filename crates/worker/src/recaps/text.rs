//! A recap's words: the subject and plain-text body of its e-mail (the
//! body, which opens with the subject, is also the chat post), in English or German (the member's
//! language; any other is written in English).

use vidpulse_domain::analytics::DateRange;
use vidpulse_store::{DueRecap, Frequency, TopVideo};

/// The numbers a recap tells.
#[derive(Debug, Clone, PartialEq)]
pub struct RecapFigures {
    /// Views the videos in scope gained over the period (from their first
    /// reading: views before tracking never count).
    pub views_gained: i64,
    /// The videos that gained most views, best first (only gains above 0).
    pub top: Vec<TopVideo>,
    /// Videos whose tracking started in the period.
    pub new_videos: i64,
    /// Alert firings in the period.
    pub alerts_fired: i64,
    /// A campaign's spend against its budget.
    pub spend: Option<Spend>,
}

/// A campaign's spend to the period's end, against its budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Spend {
    /// The sum of its videos' known costs.
    pub spend: f64,
    /// Its budget.
    pub budget: Option<f64>,
    /// ISO 4217 code.
    pub currency: String,
}

/// A recap's e-mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The subject line.
    pub subject: String,
    /// The plain-text body.
    pub body: String,
}

/// The words of one language.
struct Words {
    daily: &'static str,
    weekly: &'static str,
    campaign: &'static str,
    views_gained: &'static str,
    new_videos: &'static str,
    alerts_fired: &'static str,
    spend: &'static str,
    of_budget: &'static str,
    left: &'static str,
    over: &'static str,
    top: &'static str,
    none_gained: &'static str,
    views: &'static str,
    open: &'static str,
    manage: &'static str,
    thousands: char,
    decimal: char,
}

const ENGLISH: Words = Words {
    daily: "Daily recap",
    weekly: "Weekly recap",
    campaign: "campaign",
    views_gained: "Views gained",
    new_videos: "New videos tracked",
    alerts_fired: "Alerts fired",
    spend: "Spend",
    of_budget: "of a budget of",
    left: "left",
    over: "over budget",
    top: "Videos that gained most",
    none_gained: "No video gained views in this period.",
    views: "views",
    open: "Open the dashboard",
    manage: "Change or stop your recaps",
    thousands: ',',
    decimal: '.',
};

const GERMAN: Words = Words {
    daily: "Tägliche Übersicht",
    weekly: "Wöchentliche Übersicht",
    campaign: "Kampagne",
    views_gained: "Gewonnene Aufrufe",
    new_videos: "Neu verfolgte Videos",
    alerts_fired: "Ausgelöste Alarme",
    spend: "Ausgaben",
    of_budget: "von einem Budget von",
    left: "übrig",
    over: "über dem Budget",
    top: "Videos mit den meisten neuen Aufrufen",
    none_gained: "Kein Video hat in diesem Zeitraum Aufrufe gewonnen.",
    views: "Aufrufe",
    open: "Zum Dashboard",
    manage: "Übersichten ändern oder abbestellen",
    thousands: '.',
    decimal: ',',
};

/// The words of `language` (`de`: German; anything else: English).
fn words(language: &str) -> &'static Words {
    match language.split(['-', '_']).next().unwrap_or_default() {
        "de" => &GERMAN,
        _ => &ENGLISH,
    }
}

/// `n` with the language's thousands separator.
fn count(n: i64, w: &Words) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(w.thousands);
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// An amount of money, to cents, with its currency.
fn money(amount: f64, currency: &str, w: &Words) -> String {
    let cents = (amount * 100.0).round() as i64;
    format!(
        "{}{}{:02} {currency}",
        count(cents / 100, w),
        w.decimal,
        (cents % 100).abs()
    )
}

/// The period as written: one day, or its first and last day.
fn period(range: DateRange) -> String {
    if range.from == range.to {
        range.from.to_string()
    } else {
        format!("{} – {}", range.from, range.to)
    }
}

/// The spend line.
fn spend_line(s: &Spend, w: &Words) -> String {
    let spent = money(s.spend, &s.currency, w);
    match s.budget {
        Some(budget) if budget >= s.spend => format!(
            "{}: {spent} {} {} ({} {})",
            w.spend,
            w.of_budget,
            money(budget, &s.currency, w),
            money(budget - s.spend, &s.currency, w),
            w.left
        ),
        Some(budget) => format!(
            "{}: {spent} {} {} ({} {})",
            w.spend,
            w.of_budget,
            money(budget, &s.currency, w),
            money(s.spend - budget, &s.currency, w),
            w.over
        ),
        None => format!("{}: {spent}", w.spend),
    }
}

/// One ranked video, with its link.
fn video_lines(place: usize, v: &TopVideo, w: &Words, dashboard: &str) -> String {
    let title = v.title.as_deref().unwrap_or(&v.external_id);
    let author = v
        .author_username
        .as_deref()
        .map(|a| format!(" · @{a}"))
        .unwrap_or_default();
    format!(
        "{place}. {title}{author} ({}): +{} {}\n   {dashboard}/videos/{}",
        v.platform.display_name(),
        count(v.gains.views, w),
        w.views,
        v.video_id.0
    )
}

/// The recap of `recap` with `figures`, in the recap's language, its links
/// into the dashboard at `dashboard`.
pub fn compose(recap: &DueRecap, figures: &RecapFigures, dashboard: &str) -> Message {
    let w = words(&recap.language);
    let kind = match recap.frequency {
        Frequency::Daily => w.daily,
        Frequency::Weekly => w.weekly,
    };
    let scope = match &recap.campaign {
        Some((_, name)) => format!("{} · {} {name}", recap.org_name, w.campaign),
        None => recap.org_name.clone(),
    };
    let subject = format!("{kind}: {scope} ({})", period(recap.period));
    let mut lines = vec![
        subject.clone(),
        String::new(),
        format!("{}: {}", w.views_gained, count(figures.views_gained, w)),
        format!("{}: {}", w.new_videos, count(figures.new_videos, w)),
    ];
    lines.push(format!(
        "{}: {}",
        w.alerts_fired,
        count(figures.alerts_fired, w)
    ));
    if let Some(spend) = &figures.spend {
        lines.push(spend_line(spend, w));
    }
    lines.push(String::new());
    if figures.top.is_empty() {
        lines.push(w.none_gained.to_owned());
    } else {
        lines.push(format!("{}:", w.top));
        for (i, video) in figures.top.iter().enumerate() {
            lines.push(video_lines(i + 1, video, w, dashboard));
        }
    }
    let open = match &recap.campaign {
        Some((id, _)) => format!("{dashboard}/campaigns/{}", id.0),
        None => format!("{dashboard}/videos"),
    };
    lines.push(String::new());
    lines.push(format!("{}: {open}", w.open));
    lines.push(format!("{}: {dashboard}/recaps", w.manage));
    Message {
        subject,
        body: lines.join("\n") + "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_money_follow_the_language() {
        assert_eq!(count(1_234_567, &ENGLISH), "1,234,567");
        assert_eq!(count(1_234_567, &GERMAN), "1.234.567");
        assert_eq!(count(-999, &ENGLISH), "-999");
        assert_eq!(money(1234.5, "EUR", &GERMAN), "1.234,50 EUR");
        assert_eq!(money(0.0, "USD", &ENGLISH), "0.00 USD");
    }

    #[test]
    fn the_spend_line_says_what_is_left_or_over() {
        let spend = |spend, budget| Spend {
            spend,
            budget,
            currency: "USD".into(),
        };
        assert_eq!(
            spend_line(&spend(250.0, Some(1000.0)), &ENGLISH),
            "Spend: 250.00 USD of a budget of 1,000.00 USD (750.00 USD left)"
        );
        assert_eq!(
            spend_line(&spend(1200.0, Some(1000.0)), &ENGLISH),
            "Spend: 1,200.00 USD of a budget of 1,000.00 USD (200.00 USD over budget)"
        );
        assert_eq!(spend_line(&spend(5.0, None), &ENGLISH), "Spend: 5.00 USD");
    }

    #[test]
    fn an_unknown_language_is_english() {
        assert_eq!(words("de-AT").daily, GERMAN.daily);
        assert_eq!(words("fr").daily, ENGLISH.daily);
    }
}
