//! An MCP client for the tests: `zo mcp` as a child process, JSON-RPC over its stdin/stdout,
//! one message a line. Its stderr is discarded: a pipe nobody reads could fill and stall it.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    pub fn start(dir: &std::path::Path) -> Client {
        Client::start_with(super::zo_command(dir).arg("mcp"))
    }

    pub fn start_with(cmd: &mut Command) -> Client {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    pub fn send(&mut self, v: &Value) {
        let w = self.stdin.as_mut().unwrap();
        writeln!(w, "{v}").unwrap();
        w.flush().unwrap();
    }

    /// A request; returns the response with the same id (skipping notifications).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout while {method} was pending"
            );
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if v["id"] == id {
                return v;
            }
        }
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}));
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Call a tool: (structured content, text, is_error).
    pub fn call(&mut self, name: &str, args: Value) -> (Value, String, bool) {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let res = &r["result"];
        assert!(res.is_object(), "{name}: {r}");
        let text = res["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (
            res["structuredContent"].clone(),
            text,
            res["isError"] == true,
        )
    }

    pub fn ok(&mut self, name: &str, args: Value) -> (Value, String) {
        let (v, text, err) = self.call(name, args.clone());
        assert!(!err, "{name} {args}: {text}");
        (v, text)
    }

    pub fn fails(&mut self, name: &str, args: Value) -> String {
        let (_, text, err) = self.call(name, args.clone());
        assert!(err, "{name} {args} should fail: {text}");
        text
    }

    /// Close stdin and wait: the server must exit cleanly.
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}
