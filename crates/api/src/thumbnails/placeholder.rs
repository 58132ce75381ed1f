//! The picture that stands in for a video's thumbnail: a 16:9 tile in the
//! platform's colour with its initial, drawn here as SVG (no text from a
//! request or the database goes into it).

use vidpulse_domain::Platform;

/// The tile's background colour: the platform's own.
fn colour(platform: Platform) -> &'static str {
    match platform {
        Platform::TikTok => "#111111",
        Platform::Instagram => "#c13584",
        Platform::YouTube => "#cc0000",
    }
}

/// The SVG for `platform`'s videos.
pub fn svg(platform: Platform) -> String {
    let initial = platform.display_name().chars().next().unwrap_or('?');
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 160 90\" width=\"160\" height=\"90\">\
         <rect width=\"160\" height=\"90\" rx=\"6\" fill=\"{}\"/>\
         <text x=\"80\" y=\"58\" text-anchor=\"middle\" font-family=\"sans-serif\" \
         font-size=\"40\" font-weight=\"bold\" fill=\"#ffffff\">{initial}</text></svg>",
        colour(platform)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_platform_has_its_tile() {
        for (platform, initial) in [
            (Platform::TikTok, ">T<"),
            (Platform::Instagram, ">I<"),
            (Platform::YouTube, ">Y<"),
        ] {
            let svg = svg(platform);
            assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            assert!(svg.contains(initial), "{svg}");
            assert!(svg.contains(colour(platform)));
            assert!(!svg.contains("<script"));
        }
    }
}
