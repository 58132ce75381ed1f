//! Requests read as their documented types.
//!
//! Every request body and query string is a serde type, the one its
//! endpoint's OpenAPI entry documents (`ToSchema` for a body, `IntoParams`
//! for a query). The extractors ([`crate::extract`]) read the JSON (a query
//! as an object of strings) and refuse NUL characters; [`Input::from_json`]
//! then types it. When serde finds a fault, `serde_path_to_error` says where,
//! and the type's [`Refusals::refuse`] words the answer from that place and
//! from what the request sent there: the codes and messages the spec fixes.
//!
//! Of several faults, the one answered is the first serde meets: present
//! fields in key order (serde_json keeps an object's keys sorted), then
//! missing ones in the order the type declares them.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_path_to_error::Segment;
use uuid::Uuid;
use vidpulse_domain::patch::parse_campaign;

use crate::error::ApiError;

/// A request body or query string, read from its JSON form.
pub trait Input: Sized {
    /// `value` (the body, or the query as an object of strings) as `Self`,
    /// or the answer to the first fault in it.
    fn from_json(value: &Value) -> Result<Self, ApiError>;
}

/// A request type serde reads, with the answers its faults get.
pub trait Refusals: DeserializeOwned {
    /// The answer to `fault`, worded as the spec words it.
    fn refuse(fault: &Fault<'_>) -> ApiError;
}

impl<T: Refusals> Input for T {
    fn from_json(value: &Value) -> Result<Self, ApiError> {
        typed(value).map_err(|fault| T::refuse(&fault))
    }
}

/// `value` as `T`, which only a JSON object can be; or the first fault serde
/// finds in it.
pub fn typed<T: DeserializeOwned>(value: &Value) -> Result<T, Fault<'_>> {
    serde_path_to_error::deserialize::<_, Object<T>>(value)
        .map(|Object(t)| t)
        .map_err(|e| Fault::new(value, e.path(), e.inner()))
}

/// Where a request does not fit its type, and what it sent there.
#[derive(Debug)]
pub struct Fault<'a> {
    body: &'a Value,
    steps: Vec<Step>,
}

/// One step of a fault's path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

impl<'a> Fault<'a> {
    fn new(body: &'a Value, path: &serde_path_to_error::Path, error: &serde_json::Error) -> Self {
        let mut steps = Vec::new();
        for segment in path.iter() {
            match segment {
                Segment::Map { key } => steps.push(Step::Key(key.clone())),
                Segment::Seq { index } => steps.push(Step::Index(*index)),
                Segment::Enum { .. } | Segment::Unknown => break,
            }
        }
        // serde reports a missing field at the object that lacks it.
        if let Some(field) = missing_field(error) {
            steps.push(Step::Key(field));
        }
        Self { body, steps }
    }

    /// The top-level field at fault (`invites` in `invites[1].email`); empty
    /// when the body as a whole is.
    pub fn field(&self) -> &str {
        match self.steps.first() {
            Some(Step::Key(key)) => key,
            _ => "",
        }
    }

    /// The path at fault, written as the NUL check writes it:
    /// `invites[1].email`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            match step {
                Step::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// The index of the first array entry on the path (`1` in `invites[1].email`).
    pub fn index(&self) -> Option<usize> {
        self.steps.iter().find_map(|step| match step {
            Step::Index(i) => Some(*i),
            Step::Key(_) => None,
        })
    }

    /// What the request sent at the path; `None` when nothing.
    pub fn sent(&self) -> Option<&'a Value> {
        self.steps
            .iter()
            .try_fold(self.body, |value, step| match step {
                Step::Key(key) => value.get(key.as_str()),
                Step::Index(i) => value.get(*i),
            })
    }

    /// What the request sent in its top-level `field`; `None` when nothing.
    pub fn sent_in(&self, field: &str) -> Option<&'a Value> {
        self.body.get(field)
    }

    /// The whole request.
    pub fn body(&self) -> &'a Value {
        self.body
    }
}

/// The field serde found missing: it says so as "missing field `name`".
fn missing_field(error: &serde_json::Error) -> Option<String> {
    let message = error.to_string();
    Some(
        message
            .strip_prefix("missing field `")?
            .strip_suffix('`')?
            .to_owned(),
    )
}

/// `T` read from a JSON object only (serde would also build a struct from an
/// array of its fields, in order).
#[derive(Debug)]
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(Fields(PhantomData))
            .map(Object)
    }
}

/// A UUID sent as a string; whitespace around it is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id(pub Uuid);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Uuid::parse_str(text.trim())
            .map(Id)
            .map_err(de::Error::custom)
    }
}

/// Distinct UUIDs in the order sent: at most `MAX` sent, at least `MIN` once
/// repeats are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids<const MIN: usize, const MAX: usize>(pub Vec<Uuid>);

impl<'de, const MIN: usize, const MAX: usize> Deserialize<'de> for Ids<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let sent = Vec::<Id>::deserialize(deserializer)?;
        if sent.len() > MAX {
            return Err(de::Error::invalid_length(sent.len(), &"fewer ids"));
        }
        let mut ids: Vec<Uuid> = Vec::with_capacity(sent.len());
        for Id(id) in sent {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if ids.len() < MIN {
            return Err(de::Error::invalid_length(ids.len(), &"more ids"));
        }
        Ok(Ids(ids))
    }
}

/// Text, trimmed: `MIN` to `MAX` characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trimmed<const MIN: usize, const MAX: usize>(pub String);

impl<'de, const MIN: usize, const MAX: usize> Deserialize<'de> for Trimmed<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let trimmed = text.trim();
        if (MIN..=MAX).contains(&trimmed.chars().count()) {
            Ok(Trimmed(trimmed.to_owned()))
        } else {
            Err(de::Error::invalid_length(trimmed.len(), &"another length"))
        }
    }
}

/// `MIN` to `MAX` entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List<T, const MIN: usize, const MAX: usize>(pub Vec<T>);

impl<'de, T: Deserialize<'de>, const MIN: usize, const MAX: usize> Deserialize<'de>
    for List<T, MIN, MAX>
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = Vec::<T>::deserialize(deserializer)?;
        if (MIN..=MAX).contains(&items.len()) {
            Ok(List(items))
        } else {
            Err(de::Error::invalid_length(items.len(), &"another count"))
        }
    }
}

/// A whole number from `MIN` to `MAX`: a JSON integer in a body, decimal
/// text in a query (through [`text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const MIN: i64, const MAX: i64>(pub i64);

impl<const MIN: i64, const MAX: i64> Bounded<MIN, MAX> {
    fn new(n: i64) -> Option<Self> {
        (MIN..=MAX).contains(&n).then_some(Self(n))
    }
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(deserializer)?;
        Self::new(n).ok_or_else(|| de::Error::custom("out of range"))
    }
}

impl<const MIN: i64, const MAX: i64> FromStr for Bounded<MIN, MAX> {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        s.parse::<i64>().ok().and_then(Self::new).ok_or(())
    }
}

/// A query parameter read with its `FromStr` (a query sends text, whatever
/// the parameter's type); for `#[serde(default, deserialize_with = "text")]`.
pub fn text<'de, D: Deserializer<'de>, T: FromStr>(deserializer: D) -> Result<Option<T>, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse()
        .map(Some)
        .map_err(|_| de::Error::custom("not understood"))
}

/// As [`text`], an empty parameter counting as absent.
pub fn text_unless_empty<'de, D: Deserializer<'de>, T: FromStr>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| de::Error::custom("not understood"))
}

/// A campaign tag ([`parse_campaign`]: trimmed, of letters, digits, spaces and
/// `- _ . ( ) | : % &`); `None` when blank, which clears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Campaign(pub Option<String>);

impl<'de> Deserialize<'de> for Campaign {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_campaign(&text)
            .map(Campaign)
            .map_err(de::Error::custom)
    }
}

/// The answer to a faulty [`Campaign`] in field `campaign`, which held `sent`.
pub fn bad_campaign(sent: Option<&Value>) -> ApiError {
    let message = match sent {
        Some(Value::String(text)) => match parse_campaign(text) {
            Err(rule) => rule,
            // serde refused it, so the rules do: not reached.
            Ok(_) => "`campaign` must be a string or null".to_owned(),
        },
        _ => "`campaign` must be a string or null".to_owned(),
    };
    ApiError::validation("campaign", message)
}

/// 400 naming the body: it is not a JSON object.
pub fn not_an_object() -> ApiError {
    ApiError::validation("body", "The body must be a JSON object")
}

/// The answer to a faulty [`Id`] field: required, a UUID, a UUID string.
pub fn bad_id(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let message = match fault.sent() {
        None | Some(Value::Null) => format!("`{field}` is required"),
        Some(Value::String(_)) => format!("`{field}` must be a UUID"),
        Some(_) => format!("`{field}` must be a UUID string"),
    };
    ApiError::validation(field, message)
}

/// The answer to a faulty [`Ids`] field.
pub fn bad_ids<const MIN: usize, const MAX: usize>(field: &str) -> ApiError {
    ApiError::validation(
        field,
        format!("`{field}` must be an array of {MIN} to {MAX} UUID strings"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[expect(dead_code, reason = "read by serde only, to test its faults")]
    struct Invites {
        invites: List<Object<Invite>, 1, 3>,
        note: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[expect(dead_code, reason = "read by serde only, to test its faults")]
    struct Invite {
        email: String,
        role: Bounded<1, 3>,
    }

    fn fault(body: Value) -> (String, String, Option<Value>) {
        let fault = typed::<Invites>(&body).unwrap_err();
        (
            fault.field().to_owned(),
            fault.path(),
            fault.sent().cloned(),
        )
    }

    #[test]
    fn faults_name_their_place_and_what_was_sent_there() {
        let f = |field: &str, path: &str, sent: Option<Value>| (field.into(), path.into(), sent);
        assert_eq!(fault(json!([1])), f("", "", Some(json!([1]))));
        assert_eq!(fault(json!({})), f("invites", "invites", None));
        assert_eq!(
            fault(json!({"invites": "x"})),
            f("invites", "invites", Some(json!("x")))
        );
        assert_eq!(
            fault(json!({"invites": []})),
            f("invites", "invites", Some(json!([])))
        );
        assert_eq!(
            fault(json!({"invites": [{"email": "a", "role": 1}, {"role": 2}]})),
            f("invites", "invites[1].email", None)
        );
        assert_eq!(
            fault(json!({"invites": [{"email": "a", "role": 9}]})),
            f("invites", "invites[0].role", Some(json!(9)))
        );
        // A struct is read from an object only, never from an array.
        assert_eq!(
            fault(json!({"invites": [["a", 1]]})),
            f("invites", "invites[0]", Some(json!(["a", 1])))
        );
        assert_eq!(
            fault(json!({"invites": [{"email": "a", "role": 1}], "colour": 1})),
            f("colour", "colour", Some(json!(1)))
        );
        assert_eq!(
            fault(json!({"invites": [{"email": "a", "role": 1}], "note": 5})),
            f("note", "note", Some(json!(5)))
        );
        assert!(typed::<Invites>(&json!({"invites": [{"email": "a", "role": 1}]})).is_ok());
    }

    #[test]
    fn ids_are_trimmed_distinct_and_counted() {
        let a = "7d0f3c52-3c3e-4b7e-9f1a-2d1c0b5e8a11";
        let ids = |v: Value| serde_json::from_value::<Ids<1, 2>>(v).map(|Ids(ids)| ids.len());
        assert_eq!(ids(json!([format!(" {a} "), a, a])).ok(), None, "3 sent");
        assert_eq!(ids(json!([a, a])).ok(), Some(1));
        assert!(ids(json!([])).is_err());
        assert!(ids(json!(["nope"])).is_err());
        assert!(ids(json!([7])).is_err());
    }

    #[test]
    fn query_text_is_parsed_with_from_str() {
        #[derive(Deserialize)]
        struct Page {
            #[serde(default, deserialize_with = "text")]
            limit: Option<Bounded<1, 100>>,
            #[serde(default, deserialize_with = "text_unless_empty")]
            offset: Option<Bounded<0, 10>>,
        }
        let page = |v: Value| serde_json::from_value::<Page>(v).map(|p| (p.limit, p.offset));
        assert_eq!(page(json!({})).ok(), Some((None, None)));
        assert_eq!(
            page(json!({"limit": "5", "offset": ""})).ok(),
            Some((Some(Bounded(5)), None))
        );
        assert!(page(json!({"limit": ""})).is_err());
        assert!(page(json!({"limit": "0"})).is_err());
        assert!(page(json!({"offset": "11"})).is_err());
    }
}
