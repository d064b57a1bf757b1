//! `recommend serve` on a free loopback port, stopped when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    _log: std::thread::JoinHandle<()>,
}

impl Server {
    /// Start the real binary on `index`, reading the bound address from its start-up line.
    pub fn start(index: &Path) -> Server {
        Server::start_with(index, &[])
    }

    /// [`Server::start`] with more arguments (`--feed FILE`); lines before the start-up line
    /// (the Inbox's) are skipped.
    pub fn start_with(index: &Path, args: &[&str]) -> Server {
        let index = index.to_str().expect("a UTF-8 index path");
        Server::start_args(
            &[
                &["serve", "--addr", "127.0.0.1:0", "--index", index][..],
                args,
            ]
            .concat(),
        )
    }

    /// The binary with exactly `args` (`serve --store URL ...`), read as [`Server::start`] does.
    pub fn start_args(args: &[&str]) -> Server {
        Server::start_args_env(args, &[])
    }

    /// [`Server::start_args`] with `env` set for the server.
    pub fn start_args_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_recommend"));
        for name in super::pg::LIBPQ_ENV {
            cmd.env_remove(name);
        }
        let mut child = cmd
            .args(args)
            .envs(env.iter().copied())
            .env_remove("RECOMMEND_STORE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start recommend serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines
            .by_ref()
            .map(|l| l.expect("readable stderr"))
            .find(|l| l.contains("listening on http://"))
            .expect("a start-up line");
        let addr = first
            .split("listening on http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no address in the start-up line: {first}"))
            .to_string();
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base: format!("http://{addr}"),
            _log: log,
        }
    }

    /// Send raw bytes as one request: the status code (0 if the connection closed) and the
    /// body as JSON (a string when it is not JSON).
    pub fn raw_response(&self, request: &[u8]) -> (u16, Value) {
        let addr = self.base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // The server may answer before it has read everything (a refused head).
        let _ = s.write_all(request);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        let code = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let json = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
        (code, json)
    }

    /// Wait (up to 5 minutes) until `/healthz` says the model is ready; panic if it failed.
    pub fn wait_for_model(&self) {
        let start = Instant::now();
        loop {
            let mut r = ureq::get(&format!("{}/healthz", self.base)).call().unwrap();
            let h: serde_json::Value =
                serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
            match h["model"].as_str() {
                Some("ready") => return,
                Some("unavailable") => panic!("the model did not load: {}", h["model_error"]),
                _ if start.elapsed() > Duration::from_secs(300) => panic!("model still loading"),
                _ => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
