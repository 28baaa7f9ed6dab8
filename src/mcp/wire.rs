//! JSON-RPC 2.0 as `zo mcp` speaks it on stdio: one message a line in, one answer a line out.
//! Pure (no process, no memory files), so unit tests, proptest and the `mcp_line` fuzz target
//! drive it with any bytes. A client waits for the answer to each request it sent; a line that
//! got none would hang it for good, so every non-blank line ends in exactly one [`Incoming`],
//! and only notifications and a client's responses go unanswered, as JSON-RPC says.

use serde_json::{Map, Value, json};
use std::io::{self, BufRead};

/// The longest message (line) the server reads: 4 MiB, line end excluded. A longer line is
/// skipped as it streams in, never held in memory, and answered with -32600 naming the cap.
/// Honest requests are far smaller: tool arguments are entries of Markdown memory files.
pub const MAX_LINE: usize = 4 << 20;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// JSON-RPC leaves -32000..-32099 to the server: zo's own refusals (no memory here).
pub const SERVER_ERROR: i64 = -32000;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

/// What one non-blank line is.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request: answered exactly once, under its id.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification (no id): never answered.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A client's response. zo sends no requests, so it answers nothing; answering it would
    /// let two peers bounce errors at each other forever.
    Response,
    /// Not a message zo can serve: answered with this error, under the line's id when it
    /// could be read (else null, as JSON-RPC says).
    Invalid { id: Value, error: RpcError },
}

/// A line as read: its bytes (line end removed), or only its length when over the cap.
#[derive(Debug, PartialEq)]
pub enum Line<'a> {
    Text(&'a [u8]),
    TooLong(u64),
}

/// Bounded lines from a reader: at most `cap` bytes of a line are ever held, whatever the
/// input; the rest of a longer line is read and dropped chunk by chunk.
pub struct Lines<R> {
    inner: R,
    cap: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R, cap: usize) -> Lines<R> {
        Lines {
            inner,
            cap,
            buf: Vec::new(),
        }
    }

    /// How many bytes the line buffer holds allocated (never more than the cap).
    pub fn held(&self) -> usize {
        self.buf.capacity()
    }

    /// The next non-blank line (blank: nothing but ASCII whitespace; a trailing CR is part
    /// of the line end), or `None` at the end of input. A last line without `\n` counts.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            // One huge line must not keep its buffer for the rest of the session.
            if self.buf.capacity() > 64 << 10 {
                self.buf = Vec::new();
            }
            self.buf.clear();
            let mut total: u64 = 0;
            let mut seen_text = false;
            let mut ended = false;
            loop {
                let chunk = match self.inner.fill_buf() {
                    Ok(c) => c,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if chunk.is_empty() {
                    break;
                }
                let (take, done) = match memchr::memchr(b'\n', chunk) {
                    Some(i) => (i, true),
                    None => (chunk.len(), false),
                };
                let part = &chunk[..take];
                total += take as u64;
                seen_text = seen_text || part.iter().any(|b| !b.is_ascii_whitespace());
                let keep = take.min(self.cap - self.buf.len());
                if keep > 0 {
                    // Grow by doubling, but never past the cap.
                    let want = (self.buf.len() + keep)
                        .max(self.buf.capacity() * 2)
                        .min(self.cap);
                    if want > self.buf.capacity() {
                        self.buf.reserve_exact(want - self.buf.len());
                    }
                    self.buf.extend_from_slice(&part[..keep]);
                }
                self.inner.consume(if done { take + 1 } else { take });
                if done {
                    ended = true;
                    break;
                }
            }
            if !ended && total == 0 {
                return Ok(None);
            }
            if !seen_text {
                continue;
            }
            if total > self.cap as u64 {
                return Ok(Some(Line::TooLong(total)));
            }
            let end = self.buf.len() - usize::from(self.buf.ends_with(b"\r"));
            return Ok(Some(Line::Text(&self.buf[..end])));
        }
    }

    /// The next message: [`Lines::next_line`] then [`parse`]; `None` at the end of input.
    pub fn next_message(&mut self) -> io::Result<Option<Incoming>> {
        let cap = self.cap;
        Ok(self.next_line()?.map(|line| match line {
            Line::Text(t) => parse(t),
            Line::TooLong(n) => too_long(n, cap),
        }))
    }
}

/// The answer to a line over the cap.
pub fn too_long(len: u64, cap: usize) -> Incoming {
    invalid(
        Value::Null,
        INVALID_REQUEST,
        format!(
            "Invalid Request: the message is {len} bytes, over zo mcp's limit of {cap} bytes a line; it was not read"
        ),
    )
}

fn invalid(id: Value, code: i64, message: impl Into<String>) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::new(code, message),
    }
}

/// One line's bytes as a message.
pub fn parse(line: &[u8]) -> Incoming {
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return invalid(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "Parse error: the message is not UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
            );
        }
    };
    match serde_json::from_str::<Value>(text) {
        Ok(v) => classify(v),
        Err(e) => invalid(Value::Null, PARSE_ERROR, format!("Parse error: {e}")),
    }
}

/// The JSON type's name, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON value as a message (JSON-RPC 2.0 §4–5; MCP allows no batches since 2025-06-18).
pub fn classify(v: Value) -> Incoming {
    let mut o = match v {
        Value::Object(o) => o,
        Value::Array(_) => {
            return invalid(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: batches (JSON arrays) are not supported; send one message a line",
            );
        }
        other => {
            return invalid(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: a message is a JSON object, not {}",
                    kind(&other)
                ),
            );
        }
    };
    // The id first, so every later error can carry it. MCP forbids a null id.
    let id = match o.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        Some(other) => {
            return invalid(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: id must be a string or a number, not {}",
                    kind(&other)
                ),
            );
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(
            reply_id,
            INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        );
    }
    let params = match o.remove("params") {
        None | Some(Value::Null) => None,
        Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
        Some(other) => {
            return invalid(
                reply_id,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: params must be an object, not {}",
                    kind(&other)
                ),
            );
        }
    };
    match (o.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(other), _) => invalid(
            reply_id,
            INVALID_REQUEST,
            format!(
                "Invalid Request: method must be a string, not {}",
                kind(&other)
            ),
        ),
        (None, Some(_)) if o.contains_key("result") != o.contains_key("error") => {
            Incoming::Response
        }
        (None, _) => invalid(reply_id, INVALID_REQUEST, "Invalid Request: no method"),
    }
}

/// `tools/call`'s params: the tool's name and its arguments (absent or null: none).
pub fn call_params(params: Option<Value>) -> Result<(String, Value), RpcError> {
    let bad = |m: String| RpcError::new(INVALID_PARAMS, format!("Invalid params: {m}"));
    let mut p = match params {
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(bad(format!(
                "tools/call takes an object {{\"name\", \"arguments\"}}, not {}",
                kind(&other)
            )));
        }
        None => {
            return Err(bad(
                "tools/call needs params {\"name\", \"arguments\"}".into()
            ));
        }
    };
    let name = match p.remove("name") {
        Some(Value::String(n)) => n,
        Some(other) => {
            return Err(bad(format!(
                "the tool name must be a string, not {}",
                kind(&other)
            )));
        }
        None => {
            return Err(bad(
                "tools/call needs the tool's name (params.name); `tools/list` has them".into(),
            ));
        }
    };
    let args = match p.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a @ Value::Object(_)) => a,
        Some(other) => {
            return Err(bad(format!(
                "the arguments of {name} must be an object, not {}",
                kind(&other)
            )));
        }
    };
    Ok((name, args))
}

/// A success answer.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error answer.
pub fn error(id: Value, e: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
}

/// A message as the one line it is sent as (compact JSON holds no raw newline).
pub fn line(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec(v).unwrap_or_else(|_| {
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_vec()
    });
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize) -> Vec<Incoming> {
        // A tiny buffer, so lines span many reads.
        let mut lines = Lines::new(io::BufReader::with_capacity(3, input), cap);
        let mut out = Vec::new();
        while let Some(m) = lines.next_message().unwrap() {
            assert!(lines.held() <= cap);
            out.push(m);
        }
        out
    }

    fn code(m: &Incoming) -> i64 {
        match m {
            Incoming::Invalid { error, .. } => error.code,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn every_non_blank_line_is_one_outcome_and_blank_ones_none() {
        let input = b"\n  \r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\t\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\nnope\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
        let got = all(input, 100);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(
            got[0],
            Incoming::Request {
                id: json!(1),
                method: "ping".into(),
                params: None
            }
        );
        assert!(matches!(got[1], Incoming::Notification { .. }));
        assert_eq!(code(&got[2]), PARSE_ERROR);
        assert_eq!(
            got[3],
            Incoming::Request {
                id: json!(2),
                method: "ping".into(),
                params: None
            },
            "a last line without \\n counts"
        );
    }

    #[test]
    fn a_line_over_the_cap_is_answered_with_its_length_and_not_held() {
        let mut input = vec![b'x'; 1000];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        let got = all(&input, 64);
        assert_eq!(got.len(), 2);
        match &got[0] {
            Incoming::Invalid { id, error } => {
                assert_eq!((id, error.code), (&Value::Null, INVALID_REQUEST));
                assert!(
                    error.message.contains("1000 bytes") && error.message.contains("64 bytes"),
                    "{}",
                    error.message
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(got[1], Incoming::Request { .. }));
        // Exactly at the cap is fine; whitespace-only is blank at any length.
        let mut at = vec![b' '; 62];
        at.extend_from_slice(b"[]\n");
        at.extend(std::iter::repeat_n(b' ', 500));
        assert_eq!(all(&at, 64).len(), 1);
    }

    #[test]
    fn each_kind_of_bad_message_gets_its_code_and_the_id_when_readable() {
        assert_eq!(code(&parse(b"{\"jsonrpc\":")), PARSE_ERROR);
        assert_eq!(code(&parse(b"\xff\xfe{}")), PARSE_ERROR);
        assert_eq!(code(&parse(b"{} {}")), PARSE_ERROR);
        for bad in [
            "[]",
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            "3",
            "\"x\"",
            "null",
            "{}",
            "{\"jsonrpc\":\"2.0\",\"id\":1}",
            "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}",
        ] {
            assert_eq!(code(&parse(bad.as_bytes())), INVALID_REQUEST, "{bad}");
        }
        match parse(br#"{"jsonrpc":"2.0","id":"a","method":7}"#) {
            Incoming::Invalid { id, .. } => assert_eq!(id, json!("a")),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":5,"result":{}}"#),
            Incoming::Response
        );
    }

    #[test]
    fn tools_call_needs_a_string_name_and_object_arguments() {
        let c = |p: Value| call_params(Some(p)).map_err(|e| e.code);
        assert_eq!(
            c(json!({"name": "status"})),
            Ok(("status".into(), json!({})))
        );
        assert_eq!(
            c(json!({"name": "status", "arguments": {"a": 1}})),
            Ok(("status".into(), json!({"a": 1})))
        );
        assert_eq!(c(json!({"arguments": {}})), Err(INVALID_PARAMS));
        assert_eq!(c(json!({"name": 3})), Err(INVALID_PARAMS));
        assert_eq!(
            c(json!({"name": "status", "arguments": [1]})),
            Err(INVALID_PARAMS)
        );
        assert_eq!(c(json!([])), Err(INVALID_PARAMS));
        assert_eq!(call_params(None).map_err(|e| e.code), Err(INVALID_PARAMS));
    }
}
