//! The MCP server (docs/api.md, "MCP"): `/mcp` on the API's listener, the
//! Model Context Protocol's Streamable HTTP transport, for AI assistants.
//!
//! Stateless: each POST carries one JSON-RPC message and is answered in
//! JSON; no session is kept (no `Mcp-Session-Id` is issued, GET and DELETE
//! answer 405), so any API node behind a load balancer answers any request.
//! A request is authenticated like `/v1` (an API key; 401 before any MCP is
//! spoken), and each tool is a thin face of the use case in `app/` that its
//! `/v1` endpoint calls, with the same plan checks, rate limits and
//! credits. A tool's arguments are its endpoint's query parameters (or
//! body), read by the same types with the same answers to faults; its
//! structured output is the endpoint's `data`, described by the schema the
//! OpenAPI document gives it. A failure is a tool error (`isError`) carrying
//! our code and message, and charges nothing.
//!
//! A file per group of tools: `videos`, `analytics`, `campaigns`, `creators`.

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext as McpContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::auth::ApiKeyAuth;
use crate::envelope::Meta;
use crate::error::{ApiError, ErrorForm};
use crate::extract::{JsonBody, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;

mod analytics;
mod campaigns;
mod creators;
mod videos;

/// Where the MCP server answers.
pub const PATH: &str = "/mcp";

/// What `initialize` tells an assistant about the server.
const INSTRUCTIONS: &str = "vidpulse tracks the statistics (views, likes, comments, reposts, saves) \
of TikTok, Instagram and YouTube videos for an organization, and its creators and campaigns. \
Read tools cost no credits except the analytics ones (campaign_report, leaderboard, totals: 1 \
credit each, paid plans); track_videos costs 30 credits per newly tracked video. Days are \
YYYY-MM-DD in UTC. A failed call is a tool error whose text starts with its code (NOT_FOUND, \
VALIDATION_ERROR, PAID_PLAN_REQUIRED, ...) and charges nothing.";

/// The `/mcp` route: the API key checked as `/v1` checks it, then the
/// Streamable HTTP transport, stateless, answering in JSON.
pub fn router() -> Router<AppState> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(crate::router::BODY_LIMIT)
        // The API's own hosts, whatever the operator names them: a caller
        // is an API key sent in a header, never a browser's ambient
        // credential, so DNS rebinding gains an attacker nothing.
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        || Ok(Server),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new().route(
        PATH,
        any(move |State(app): State<AppState>, request: Request| {
            let service = service.clone();
            async move { serve(&service, app, request).await }
        }),
    )
}

/// The transport this server runs on.
type Transport = StreamableHttpService<Server, NeverSessionManager>;

/// Authenticates `request` (401 as on `/v1`), then hands it to the
/// transport with the caller and the application in its extensions.
async fn serve(service: &Transport, app: AppState, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let auth = match ApiKeyAuth::from_request_parts(&mut parts, &app).await {
        Ok(auth) => auth,
        Err(e) => return e.into_response(),
    };
    // Each MCP request spends one unit of the key's general budget, as a
    // `/v1` request does (429 with `Retry-After` once it is spent).
    if let Err(e) = app.limits.check_request(auth.key_id).await {
        return e.into_response();
    }
    parts.extensions.insert(auth);
    parts.extensions.insert(app);
    service
        .handle(Request::from_parts(parts, body))
        .await
        .map(Body::new)
}

/// Whether `auth`'s key may call the tools that write (`track_videos`):
/// follows the key's scopes, a key limited to reading sees and calls only
/// the read tools.
fn may_write(auth: &ApiKeyAuth) -> bool {
    auth.allows_write()
}

/// The answer to a write tool called with a key that may only read: 403
/// `INSUFFICIENT_SCOPE`, as `/v1` answers a write outside the key's scopes.
fn write_refused(auth: &ApiKeyAuth) -> ApiError {
    crate::auth::insufficient_scope(vidpulse_domain::api_key::Scope::Write, auth.scopes)
}

/// Whether a tool only reads, or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Reads the organization's data.
    Read,
    /// Changes it (and may charge credits for it).
    Write,
}

/// A tool: its definition and whether it writes.
struct Spec {
    tool: Tool,
    access: Access,
}

/// Every tool, in the order `tools/list` gives them.
static TOOLS: LazyLock<Vec<Spec>> = LazyLock::new(|| {
    let schemas = Schemas::of_openapi();
    [
        videos::tools(&schemas),
        analytics::tools(&schemas),
        campaigns::tools(&schemas),
        creators::tools(&schemas),
    ]
    .into_iter()
    .flatten()
    .collect()
});

fn spec(name: &str) -> Option<&'static Spec> {
    TOOLS.iter().find(|s| s.tool.name == name)
}

/// One call of a tool: the caller, the request and the arguments.
pub(super) struct Call {
    app: AppState,
    auth: ApiKeyAuth,
    ctx: RequestContext,
    /// The tool called.
    spec: &'static Spec,
    args: JsonObject,
}

/// What a tool answers: the `/v1` endpoint's `data`, and its `meta`.
pub(super) struct Answer {
    data: Value,
    meta: Meta,
}

impl Answer {
    /// `data` with `meta`.
    fn new(data: impl Serialize, meta: Meta) -> Result<Self, ApiError> {
        let data = serde_json::to_value(data).map_err(|e| ApiError::internal(&e))?;
        Ok(Self { data, meta })
    }
}

impl Call {
    /// Refuses an argument the tool's input schema does not name, as a
    /// `/v1` read refuses a parameter it does not know: read with the other
    /// arguments, after the plan check.
    fn refuse_unknown(&self) -> Result<(), ApiError> {
        let known: BTreeSet<&str> = self
            .spec
            .tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        match self.args.keys().find(|k| !known.contains(k.as_str())) {
            None => Ok(()),
            Some(unknown) => {
                let known: Vec<&str> = known.into_iter().collect();
                Err(ApiError::validation(
                    unknown,
                    format!(
                        "Unknown argument `{unknown}`; `{}` takes {}",
                        self.spec.tool.name,
                        known.join(", ")
                    ),
                ))
            }
        }
    }

    /// The arguments (but `except`) as the query string of the `/v1` read:
    /// a string as it is, a number or a boolean as its text, each item of
    /// an array as a repetition of the parameter, `null` as absent.
    fn query<T>(&self, except: &[&str]) -> Result<Query<T>, ApiError> {
        self.refuse_unknown()?;
        let mut pairs = Vec::new();
        for (name, value) in self
            .args
            .iter()
            .filter(|(n, _)| !except.contains(&n.as_str()))
        {
            let items = match value {
                Value::Array(items) => items.as_slice(),
                other => std::slice::from_ref(other),
            };
            for item in items {
                let text = match item {
                    Value::Null => continue,
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    Value::Array(_) | Value::Object(_) => {
                        return Err(ApiError::validation(
                            name,
                            format!("`{name}` must be a string or a number"),
                        ));
                    }
                };
                if text.contains('\0') {
                    return Err(ApiError::validation(
                        name,
                        format!(
                            "`{name}` contains a NUL character (\\u0000), which is not accepted"
                        ),
                    ));
                }
                pairs.push((name.clone(), text));
            }
        }
        Query::from_pairs(pairs)
    }

    /// The arguments as the JSON body of the `/v1` write.
    fn body<T>(&self) -> Result<JsonBody<T>, ApiError> {
        self.refuse_unknown()?;
        JsonBody::from_value(Value::Object(self.args.clone()))
    }

    /// The text argument `name`, if sent (`null` counts as not sent).
    fn text(&self, name: &str) -> Result<Option<&str>, ApiError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ApiError::validation(
                name,
                format!("`{name}` must be a string"),
            )),
        }
    }
}

/// The MCP server: its tools, answered from the request's caller.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Server;

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut implementation = Implementation::new("vidpulse", env!("CARGO_PKG_VERSION"));
        implementation.title = Some("vidpulse".to_owned());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation)
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: McpContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (_, auth, _) = caller(&context)?;
        let writes = may_write(&auth);
        let tools = TOOLS
            .iter()
            .filter(|s| writes || s.access == Access::Read)
            .map(|s| s.tool.clone())
            .collect();
        // The list depends on the key: no shared cache may keep it.
        Ok(ListToolsResult::with_all_items(tools)
            .with_ttl_ms(0)
            .with_cache_scope(rmcp::model::CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        spec(name).map(|s| s.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: McpContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (app, auth, ctx) = caller(&context)?;
        let Some(spec) = spec(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool `{}`", request.name),
                None,
            ));
        };
        let call = Call {
            app,
            auth,
            ctx,
            spec,
            args: request.arguments.unwrap_or_default(),
        };
        let result = match run(&call).await {
            Ok(answer) => success(answer),
            Err(e) => failure(&e, &call.ctx.id),
        };
        Ok(result.into())
    }
}

/// The application, the caller and the request of an MCP request, which
/// [`serve`] put in the HTTP request's extensions.
fn caller(
    context: &McpContext<RoleServer>,
) -> Result<(AppState, ApiKeyAuth, RequestContext), ErrorData> {
    let missing = || ErrorData::internal_error("the request's caller is missing", None);
    let parts = context
        .extensions
        .get::<axum::http::request::Parts>()
        .ok_or_else(missing)?;
    let app = parts.extensions.get::<AppState>().ok_or_else(missing)?;
    let auth = parts.extensions.get::<ApiKeyAuth>().ok_or_else(missing)?;
    let ctx = parts
        .extensions
        .get::<RequestContext>()
        .ok_or_else(missing)?;
    Ok((app.clone(), auth.clone(), ctx.clone()))
}

/// Runs the tool called: refused to a key that may only read when it
/// writes.
async fn run(call: &Call) -> Result<Answer, ApiError> {
    let name: &str = &call.spec.tool.name;
    if call.spec.access == Access::Write && !may_write(&call.auth) {
        return Err(write_refused(&call.auth));
    }
    match name {
        videos::FIND => videos::find(call).await,
        videos::GET => videos::get(call).await,
        videos::TRACK => videos::track(call).await,
        analytics::LEADERBOARD => analytics::leaderboard(call).await,
        analytics::TOTALS => analytics::totals(call).await,
        campaigns::LIST => campaigns::list(call).await,
        campaigns::REPORT => campaigns::report(call).await,
        creators::GET => creators::get(call).await,
        creators::FOLLOWERS => creators::followers(call).await,
        _ => Err(ApiError::not_found("No such tool")),
    }
}

/// A tool's answer: `data` as the structured content (and as text), `meta`
/// as the result's `_meta`.
fn success(answer: Answer) -> CallToolResult {
    let meta = match serde_json::to_value(&answer.meta) {
        Ok(Value::Object(meta)) => Some(MetaObject(meta)),
        _ => None,
    };
    CallToolResult::structured(answer.data).with_meta(meta)
}

/// A tool error: `CODE: message` as text, and the error as `/v1` nests
/// it, with its HTTP status, as the structured content.
fn failure(e: &ApiError, request_id: &str) -> CallToolResult {
    let mut error = match e.body(ErrorForm::Nested, request_id) {
        Value::Object(mut body) => body.remove("error").unwrap_or_default(),
        _ => Value::Null,
    };
    if let Value::Object(fields) = &mut error {
        fields.insert("status".to_owned(), json!(e.status.as_u16()));
        if let Some(secs) = e.retry_after {
            fields.insert("retry_after".to_owned(), json!(secs));
        }
    }
    let mut result = CallToolResult::structured_error(json!({ "error": error }));
    result.content = vec![ContentBlock::text(format!(
        "{}: {}",
        e.code.as_str(),
        e.message
    ))];
    result
}

/// A platform, by its id (any case is taken).
#[derive(schemars::JsonSchema)]
#[schemars(rename_all = "lowercase")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum Platform {
    Tiktok,
    Instagram,
    Youtube,
}

/// Where a video tracked after a window's first day starts counting.
#[derive(schemars::JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum Baseline {
    Window,
    Tracking,
}

/// A tool definition.
fn tool<Args: schemars::JsonSchema + 'static>(
    name: &'static str,
    title: &str,
    description: &'static str,
    output: Arc<JsonObject>,
) -> Tool {
    Tool::new(name, description, Arc::new(JsonObject::new()))
        .with_input_schema::<Args>()
        .with_title(title)
        .with_raw_output_schema(output)
}

/// The OpenAPI document's schemas, from which a tool's output schema is
/// made: the `/v1` answers' `data` are described once.
pub(super) struct Schemas(Map<String, Value>);

/// Where the OpenAPI document's schemas are referenced from.
const COMPONENTS: &str = "#/components/schemas/";

impl Schemas {
    /// The schemas of the document `/openapi.json` serves.
    fn of_openapi() -> Self {
        let document = serde_json::to_value(crate::router::openapi_document()).unwrap_or_default();
        let schemas = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        Self(schemas)
    }

    /// The output schema of a tool whose structured content is the
    /// document's schema `name`.
    pub(super) fn named(&self, name: &str) -> Arc<JsonObject> {
        self.root(self.0.get(name).cloned().unwrap_or_default())
    }

    /// An output schema of `root` (which may reference the document's
    /// schemas), with every schema it reaches in its `$defs`: a JSON Schema
    /// (2020-12) standing alone.
    pub(super) fn root(&self, mut root: Value) -> Arc<JsonObject> {
        let mut defs = Map::new();
        let mut pending = Vec::new();
        relocate(&mut root, &mut pending);
        while let Some(name) = pending.pop() {
            if defs.contains_key(&name) {
                continue;
            }
            let mut schema = self.0.get(&name).cloned().unwrap_or_default();
            relocate(&mut schema, &mut pending);
            defs.insert(name, schema);
        }
        let mut schema = match root {
            Value::Object(schema) => schema,
            _ => Map::new(),
        };
        schema.insert("type".to_owned(), json!("object"));
        if !defs.is_empty() {
            schema.insert("$defs".to_owned(), Value::Object(defs));
        }
        Arc::new(schema)
    }
}

/// Points `schema`'s references to the document's schemas at `$defs`, and
/// adds the names referenced to `found`.
fn relocate(schema: &mut Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(fields) => {
            for (key, value) in fields.iter_mut() {
                if key == "$ref"
                    && let Value::String(target) = value
                    && let Some(name) = target.strip_prefix(COMPONENTS)
                {
                    found.push(name.to_owned());
                    *target = format!("#/$defs/{name}");
                } else {
                    relocate(value, found);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| relocate(v, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
