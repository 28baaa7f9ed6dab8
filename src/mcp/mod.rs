//! `zo mcp`: a Model Context Protocol server over stdio (rmcp). Each tool is a thin adapter
//! over the library call the CLI makes, returning the CLI's `--json` shape as structured
//! content plus a short text rendering. Nothing heavy happens at start: the memory is opened per
//! request (so hand edits and pulls are seen, and no lock is held between requests), and the
//! model is loaded once, on the first call that needs it, then kept warm.

mod tools;

pub use tools::{TOOL_NAMES, check_args};

use crate::store::layout::Layout;
use crate::search::recall::Recaller;
use anyhow::Result;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeRequestParams, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::path::PathBuf;
use std::sync::Mutex;

pub struct Server {
    repo: Option<PathBuf>,
    recaller: Mutex<Recaller>,
}

const INSTRUCTIONS: &str = "zo is this project's memory, kept in its git repository. Call `context` at the start of \
work, `recall` before deciding anything that may have been decided before, `decide` when a choice is made, `prior_add` \
when a failure teaches a lesson, and `session_end` when the work ends.";

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("zo", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(&self, request: InitializeRequestParams, context: RequestContext<RoleServer>) -> Result<InitializeResult, ErrorData> {
        // No memory, no server: say so at once rather than on every tool call.
        if let Err(e) = Layout::discover(self.repo.as_deref()) {
            return Err(ErrorData::invalid_request(format!("zo: {e:#}"), None));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(&self, _: Option<PaginatedRequestParams>, _: RequestContext<RoleServer>) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, _: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.to_string();
        // A panic in a handler is reported as the tool's error; the server goes on.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tools::call(self, &name, args)))
            .unwrap_or_else(|p| {
                let why = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                Err(anyhow::anyhow!("internal error in {name}: {}", why.unwrap_or_else(|| "panic".into())))
            });
        Ok(match outcome {
            Ok((json, text)) => {
                let mut r = CallToolResult::structured(json);
                r.content = vec![ContentBlock::text(text)];
                r
            }
            // The message the CLI would print, as a tool error the agent can read.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("zo: {e:#}"))]),
        }
        .into())
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin.
pub fn serve(repo: Option<PathBuf>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let server = Server { repo, recaller: Mutex::new(Recaller::new()) };
        let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| anyhow::anyhow!("MCP: {e}"))?;
        running.waiting().await.map_err(|e| anyhow::anyhow!("MCP: {e}"))?;
        Ok(())
    })
}
