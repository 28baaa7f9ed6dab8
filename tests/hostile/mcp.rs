//! Hostile-repository cases: mcp. A client (or whatever writes to the server's stdin) sends
//! lines no honest client would; each gets exactly one answer with the JSON-RPC code it must
//! have, and the request after it is still served: a line without an answer would leave the
//! client waiting forever.
use super::*;
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;
const GOOD: &str = r#"{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"status","arguments":{}}}"#;

/// `zo mcp` fed `initialize`, then `lines`, then a good request, then EOF: it exits 0 without a
/// panic, touches nothing outside, and answers the good request last. Returns the answers to
/// `lines` alone.
fn serve(h: &Hostile, lines: &[&[u8]]) -> Vec<Value> {
    let mut input = format!("{INIT}\n").into_bytes();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    input.extend_from_slice(GOOD.as_bytes());
    input.push(b'\n');
    let r = h.run_in(&["mcp"], &input);
    check(&r, &["mcp"], 0);
    h.assert_outside_unchanged();
    let mut answers: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(
        answers.len() >= 2,
        "stdout: {}\nstderr: {}",
        r.stdout,
        r.stderr
    );
    let init = answers.remove(0);
    assert_eq!(init["result"]["serverInfo"]["name"], "zo", "{init}");
    let last = answers.pop().unwrap();
    assert_eq!(
        last["id"], "after",
        "the good request after the bad line is answered: {last}"
    );
    assert_eq!(last["result"]["isError"], false, "{last}");
    assert!(
        last["result"]["structuredContent"]["counts"].is_object(),
        "{last}"
    );
    answers
}

/// The one answer to one bad line: (code, message, id).
fn refused(h: &Hostile, line: &[u8]) -> (i64, String, Value) {
    let a = serve(h, &[line]);
    assert_eq!(a.len(), 1, "exactly one answer to the bad line: {a:?}");
    let e = &a[0]["error"];
    assert_eq!(a[0]["jsonrpc"], "2.0", "{}", a[0]);
    (
        e["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error code: {}", a[0])),
        e["message"].as_str().unwrap_or_default().to_string(),
        a[0]["id"].clone(),
    )
}

#[test]
fn mcp_malformed_json_is_a_parse_error_and_the_next_request_is_served() {
    let h = Hostile::new();
    let (code, msg, id) = refused(&h, br#"{"jsonrpc":"2.0","id":1,"method":"#);
    assert_eq!((code, &id), (-32700, &Value::Null), "{msg}");
    assert!(msg.starts_with("Parse error"), "{msg}");
}

#[test]
fn mcp_invalid_utf8_is_a_parse_error_and_the_next_request_is_served() {
    let h = Hostile::new();
    let (code, msg, id) = refused(
        &h,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\xfe\xc0\"}",
    );
    assert_eq!((code, &id), (-32700, &Value::Null), "{msg}");
    assert!(msg.contains("not UTF-8"), "{msg}");
}

#[test]
fn mcp_a_50_mb_line_is_refused_with_the_cap_without_hanging() {
    let h = Hostile::new();
    let before = std::fs::read(h.mem("DECISION_LOG.md")).unwrap();
    let mut line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"decide","arguments":{"title":"huge","decision":""#.to_vec();
    line.resize(line.len() + (50 << 20), b'A');
    line.extend_from_slice(br#""}}}"#);
    let (code, msg, id) = refused(&h, &line);
    assert_eq!((code, &id), (-32600, &Value::Null), "{msg}");
    assert!(
        msg.contains(&line.len().to_string()) && msg.contains("4194304 bytes"),
        "the answer names the size and the cap: {msg}"
    );
    assert_eq!(
        std::fs::read(h.mem("DECISION_LOG.md")).unwrap(),
        before,
        "nothing of the line was acted on"
    );
}

#[test]
fn mcp_a_batch_array_is_an_invalid_request() {
    let h = Hostile::new();
    let (code, msg, id) = refused(&h, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!((code, &id), (-32600, &Value::Null), "{msg}");
    assert!(msg.contains("batches"), "{msg}");
}

#[test]
fn mcp_a_number_is_an_invalid_request() {
    let h = Hostile::new();
    let (code, msg, id) = refused(&h, b"42");
    assert_eq!((code, &id), (-32600, &Value::Null), "{msg}");
}

#[test]
fn mcp_an_object_without_method_is_an_invalid_request_under_its_id() {
    let h = Hostile::new();
    let (code, msg, id) = refused(&h, br#"{"jsonrpc":"2.0","id":7}"#);
    assert_eq!((code, &id), (-32600, &json!(7)), "{msg}");
    assert!(msg.contains("no method"), "{msg}");
}

#[test]
fn mcp_an_id_of_the_wrong_type_or_a_wrong_jsonrpc_is_an_invalid_request() {
    let h = Hostile::new();
    let a = serve(
        &h,
        &[
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":["ping"]}"#,
        ],
    );
    let got: Vec<(Value, Value)> = a
        .iter()
        .map(|v| (v["id"].clone(), v["error"]["code"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (Value::Null, json!(-32600)),
            (json!(3), json!(-32600)),
            (json!(4), json!(-32600))
        ],
        "{a:?}"
    );
}

#[test]
fn mcp_tools_call_without_a_name_is_invalid_params() {
    let h = Hostile::new();
    let (code, msg, id) = refused(
        &h,
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}"#,
    );
    assert_eq!((code, &id), (-32602, &json!(5)), "{msg}");
    assert!(msg.contains("name"), "{msg}");
}

#[test]
fn mcp_tools_call_with_a_name_not_a_string_is_invalid_params() {
    let h = Hostile::new();
    let a = serve(
        &h,
        &[
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":["status"]}}"#,
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"status","arguments":"{}"}}"#,
        ],
    );
    let got: Vec<(Value, Value)> = a
        .iter()
        .map(|v| (v["id"].clone(), v["error"]["code"].clone()))
        .collect();
    assert_eq!(
        got,
        [(json!(5), json!(-32602)), (json!(6), json!(-32602))],
        "{a:?}"
    );
    assert!(
        a[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be a string"),
        "{a:?}"
    );
    assert!(
        a[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be an object"),
        "{a:?}"
    );
}

/// The refusal itself is the gate's (one gate for every writer); the server's part is to answer
/// it as the tool's error and go on.
#[test]
fn mcp_a_nul_in_arguments_is_a_tool_error_and_the_server_goes_on() {
    let h = Hostile::new();
    let before = std::fs::read(h.mem("DECISION_LOG.md")).unwrap();
    let a = serve(&h, &[br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"decide","arguments":{"title":"nul\u0000here","decision":"d"}}}"#]);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["id"], 8, "{a:?}");
    assert_eq!(a[0]["result"]["isError"], true, "refused: {a:?}");
    assert_eq!(
        std::fs::read(h.mem("DECISION_LOG.md")).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn mcp_an_unknown_method_is_method_not_found_naming_it() {
    let h = Hostile::new();
    let (code, msg, id) = refused(&h, br#"{"jsonrpc":"2.0","id":9,"method":"tools/explode"}"#);
    assert_eq!((code, &id), (-32601, &json!(9)), "{msg}");
    assert!(msg.contains("tools/explode"), "{msg}");
}

/// Notifications (of any method) and a client's responses get no answer, blank lines are
/// skipped, CRLF line ends are read, and EOF ends the server with exit 0.
#[test]
fn mcp_notifications_responses_and_blank_lines_get_no_answer_and_crlf_is_read() {
    let h = Hostile::new();
    let a = serve(
        &h,
        &[
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","method":"no/such/notification","params":{"x":1}}"#,
            br#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
            b"",
            b"   \t ",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r",
        ],
    );
    assert_eq!(a, [json!({"jsonrpc": "2.0", "id": "crlf", "result": {}})]);
}
