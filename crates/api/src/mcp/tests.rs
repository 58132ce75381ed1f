//! Unit tests of the MCP server: its tools' definitions against the `/v1`
//! parameters they stand for, and their schemas standing alone.

use std::collections::BTreeSet;

use super::*;
use crate::app::videos::FILTER_PARAMETERS;

/// The names of `tool`'s arguments.
fn arguments(tool: &str) -> BTreeSet<String> {
    let spec = spec(tool).unwrap_or_else(|| panic!("no tool {tool}"));
    spec.tool.input_schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_tools_take_their_endpoints_parameters() {
    let mut listing = names(&FILTER_PARAMETERS);
    listing.extend(names(&["limit", "offset"]));
    assert_eq!(arguments(videos::FIND), listing);
    assert_eq!(
        arguments(videos::GET),
        names(&["video_id", "external_video_id"])
    );
    assert_eq!(arguments(videos::TRACK), names(&["urls"]));
    // The leaderboard's and the report's known parameters but `format`:
    // a tool answers JSON.
    assert_eq!(
        arguments(analytics::LEADERBOARD),
        names(&[
            "metric", "by", "limit", "from", "to", "platform", "campaign", "blogger", "compare",
            "baseline"
        ])
    );
    let mut report: BTreeSet<String> = crate::app::campaigns::report::KNOWN_PARAMETERS
        .iter()
        .filter(|p| **p != "format")
        .map(|p| (*p).to_owned())
        .collect();
    report.insert("campaign_id".to_owned());
    assert_eq!(arguments(campaigns::REPORT), report);
    assert_eq!(
        arguments(analytics::TOTALS),
        names(&[
            "from",
            "to",
            "group_by",
            "campaign",
            "platform",
            "blogger",
            "published_at.from",
            "published_at.to",
            "tracked_at.from",
            "tracked_at.to",
            "baseline",
            "compare"
        ])
    );
    assert_eq!(arguments(campaigns::LIST), names(&["q", "limit", "offset"]));
    assert_eq!(arguments(creators::GET), names(&["username", "platform"]));
    assert_eq!(
        arguments(creators::FOLLOWERS),
        names(&["username", "platform", "from", "to"])
    );
}

#[test]
fn every_tool_is_defined_once_and_only_tracking_writes() {
    let listed: Vec<&str> = TOOLS.iter().map(|s| &*s.tool.name).collect();
    let unique: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(listed.len(), 9);
    assert_eq!(unique.len(), listed.len());
    for spec in TOOLS.iter() {
        let hints = spec.tool.annotations.as_ref().unwrap();
        let writes = spec.access == Access::Write;
        assert_eq!(writes, &*spec.tool.name == videos::TRACK);
        assert_eq!(hints.read_only_hint, Some(!writes), "{}", spec.tool.name);
        assert_eq!(hints.destructive_hint, Some(false), "{}", spec.tool.name);
        assert!(spec.tool.description.as_ref().unwrap().len() > 80);
    }
}

/// Every `$ref` in `value`.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, v) in fields {
                match (key.as_str(), v) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn the_schemas_stand_alone() {
    for spec in TOOLS.iter() {
        let name = &spec.tool.name;
        let input = Value::Object((*spec.tool.input_schema).clone());
        assert_eq!(input["type"], "object", "{name}");
        assert_eq!(input["additionalProperties"], false, "{name}");
        let output = Value::Object((**spec.tool.output_schema.as_ref().unwrap()).clone());
        assert_eq!(output["type"], "object", "{name}");
        assert!(
            output["properties"].is_object() || output["allOf"].is_array(),
            "{name}"
        );
        for schema in [&input, &output] {
            let mut found = Vec::new();
            refs(schema, &mut found);
            for target in found {
                let local = target
                    .strip_prefix("#/$defs/")
                    .unwrap_or_else(|| panic!("{name}: {target} points outside the schema"));
                assert!(
                    schema["$defs"][local].is_object(),
                    "{name}: {target} is not in its $defs"
                );
            }
        }
    }
    // The listing's page describes the videos it holds.
    let find = spec(videos::FIND).unwrap();
    let defs = &find.tool.output_schema.as_ref().unwrap()["$defs"];
    for def in ["VideoView", "VideoFields", "MetricsView", "Pagination"] {
        assert!(defs[def].is_object(), "{def}");
    }
}

#[test]
fn a_tool_error_carries_the_code_the_message_and_the_status() {
    let e = ApiError::validation("limit", "`limit` must be 1 to 100").with_retry_after(3);
    let result = failure(&e, "req-1");
    assert_eq!(result.is_error, Some(true));
    let error = &result.structured_content.as_ref().unwrap()["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert_eq!(error["message"], "`limit` must be 1 to 100");
    assert_eq!(error["field"], "limit");
    assert_eq!(error["status"], 400);
    assert_eq!(error["retry_after"], 3);
    assert_eq!(error["request_id"], "req-1");
    let text = serde_json::to_value(&result.content[0]).unwrap();
    assert_eq!(text["text"], "VALIDATION_ERROR: `limit` must be 1 to 100");
}
