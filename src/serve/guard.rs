//! The connection guard: a request head too large for hyper's own parser gets the JSON error
//! every other status carries.
//!
//! hyper answers a request line over 65,534 bytes with a bare `414` and an oversized header
//! block with a bare `431`, before any handler or middleware runs. This wrapper reads the
//! connection's bytes first, counts the head of each request, and answers those two cases
//! itself (JSON, `connection: close`), so hyper never sees them; so are request and header
//! lines of the wrong shape, which hyper would answer with a bare `400`. Request targets between
//! [`super::MAX_URI_BYTES`] and [`MAX_REQUEST_LINE`] reach the `limits` middleware, which
//! answers them with the same JSON.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The longest request line this server reads (below hyper's 65,534-byte limit on targets).
pub const MAX_REQUEST_LINE: usize = 60 * 1024;

/// The largest request head (request line and headers) this server reads.
pub const MAX_HEAD: usize = 256 * 1024;

/// How long a connection may take to send a whole request head, counted from when the server
/// waits for it: a client that stops halfway gets a 408 and the connection closes, an idle
/// kept-alive one is closed, so a slow or stalled client never holds a connection forever.
const HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// [`HEAD_TIMEOUT`], or `RECOMMEND_TEST_HEAD_TIMEOUT_MS` (a test hook: tests cannot wait 30 s).
fn head_timeout() -> std::time::Duration {
    std::env::var("RECOMMEND_TEST_HEAD_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(HEAD_TIMEOUT, std::time::Duration::from_millis)
}

/// A listener whose connections are [`Guarded`].
pub struct GuardedListener(pub TcpListener);

impl axum::serve::Listener for GuardedListener {
    type Io = Guarded;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.0).await;
        (Guarded::new(stream), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// Where the reader is in the current request's head.
#[derive(Debug, Default)]
struct Head {
    /// Past the head's empty line (a body, or bytes hyper has not answered yet).
    done: bool,
    /// The request line has ended.
    past_request_line: bool,
    /// Bytes of the current line, line ends excluded.
    line: usize,
    /// Bytes of the head so far.
    total: usize,
    /// The current line's first bytes, enough to check its shape.
    start: Vec<u8>,
    /// The current line's last eight bytes (a request line ends with its version).
    end: [u8; 8],
    /// Spaces in the current line.
    spaces: usize,
    /// The current line holds a control character or a byte outside ASCII.
    odd: bool,
    /// The value of the head's `Content-Length` header, once seen.
    content_length: Option<Vec<u8>>,
}

/// Bytes of a line kept to check its shape: a request line's method and the start of a header.
const LINE_START: usize = 64;

/// Whether a request line is `METHOD SP target SP HTTP/1.x` with a visible-ASCII target:
/// `start` its first bytes, `end` its last eight.
fn request_line_ok(start: &[u8], end: &[u8; 8], spaces: usize, odd: bool) -> bool {
    let method = start.iter().take_while(|b| b.is_ascii_uppercase()).count();
    (1..=16).contains(&method)
        && start.get(method) == Some(&b' ')
        && spaces == 2
        && !odd
        && (end == b"HTTP/1.1" || end == b"HTTP/1.0")
}

/// Whether `line` begins like a header field: a name of token characters and a colon (or is
/// still shorter than its name).
fn header_line_ok(line: &[u8]) -> bool {
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    let name = line.iter().take_while(|b| token(b)).count();
    name > 0 && (line.get(name) == Some(&b':') || name == line.len())
}

impl Head {
    /// Whether a header `line` that is `Content-Length` holds digits alone, the same in every
    /// copy (RFC 9112, 6.3; hyper answers anything else with a bare `400`).
    fn content_length_ok(&mut self, line: &[u8]) -> bool {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return true;
        };
        if !line[..colon].eq_ignore_ascii_case(b"content-length") {
            return true;
        }
        let value = line[colon + 1..].trim_ascii();
        if value.is_empty() || value.len() > 19 || !value.iter().all(u8::is_ascii_digit) {
            return false;
        }
        match &self.content_length {
            Some(seen) => seen == value,
            None => {
                self.content_length = Some(value.to_vec());
                true
            }
        }
    }

    /// Counts `bytes`; the status to answer when the head outgrows a limit.
    fn scan(&mut self, bytes: &[u8]) -> Option<(u16, String)> {
        for &b in bytes {
            if self.done {
                return None;
            }
            self.total += 1;
            match b {
                b'\n' => {
                    let start = std::mem::take(&mut self.start);
                    let (end, spaces, odd) = (self.end, self.spaces, self.odd);
                    (self.end, self.spaces, self.odd) = ([0; 8], 0, false);
                    // Empty lines before the request line are allowed (RFC 9112, 2.2).
                    if self.line == 0 && self.past_request_line {
                        self.done = true;
                    } else if self.line > 0 {
                        let ok = if self.past_request_line {
                            header_line_ok(&start)
                        } else {
                            request_line_ok(&start, &end, spaces, odd)
                        };
                        if !ok {
                            let what = if self.past_request_line {
                                "a header line is not `Name: value`"
                            } else {
                                "the request line is not `METHOD /target HTTP/1.1`"
                            };
                            return Some((400, format!("malformed request: {what}")));
                        }
                        if self.past_request_line && !self.content_length_ok(&start) {
                            return Some((
                                400,
                                "malformed request: Content-Length is not one whole number".into(),
                            ));
                        }
                        self.past_request_line = true;
                    }
                    self.line = 0;
                }
                b'\r' => {}
                _ => {
                    self.line += 1;
                    if self.start.len() < LINE_START {
                        self.start.push(b);
                    }
                    self.end.rotate_left(1);
                    self.end[7] = b;
                    self.spaces += usize::from(b == b' ');
                    self.odd |= (b < b' ' && b != b'\t') || b >= 0x7f;
                }
            }
            if !self.past_request_line && self.line > MAX_REQUEST_LINE {
                return Some((
                    414,
                    format!(
                        "request target longer than {MAX_REQUEST_LINE} bytes (at most {})",
                        super::MAX_URI_BYTES
                    ),
                ));
            }
            if self.total > MAX_HEAD {
                return Some((431, format!("request headers larger than {MAX_HEAD} bytes")));
            }
        }
        None
    }
}

/// A connection whose request heads are checked before hyper parses them.
pub struct Guarded {
    inner: TcpStream,
    head: Head,
    /// The error response being written, and how much of it is out.
    answer: Option<(Vec<u8>, usize)>,
    /// Bytes of the current head read but not yet handed to hyper, and how many were handed.
    held: Vec<u8>,
    released: usize,
    /// The held head is whole and checked: hand it over.
    releasing: bool,
    /// The client has closed its side.
    eof: bool,
    /// When the head being waited for must be whole ([`head_timeout`]); set when the wait
    /// begins, cleared when the head is.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The connection was closed for taking too long: every read is its end.
    closed: bool,
}

impl Guarded {
    fn new(inner: TcpStream) -> Guarded {
        Guarded {
            inner,
            head: Head::default(),
            answer: None,
            held: Vec::new(),
            released: 0,
            releasing: false,
            eof: false,
            deadline: None,
            closed: false,
        }
    }
}

/// A whole HTTP/1.1 response carrying `{"error": message}`.
fn response(status: u16, message: &str) -> Vec<u8> {
    let reason = match status {
        400 => "Bad Request",
        408 => "Request Timeout",
        414 => "URI Too Long",
        _ => "Request Header Fields Too Large",
    };
    let body = serde_json::json!({ "error": message }).to_string();
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\nx-content-type-options: nosniff\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl AsyncRead for Guarded {
    /// A request head is held back until it is whole and checked (at most [`MAX_HEAD`]
    /// bytes), so hyper never starts on one the guard refuses; bodies pass straight through.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if let Some((bytes, sent)) = &mut this.answer {
                while *sent < bytes.len() {
                    let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &bytes[*sent..]))?;
                    if n == 0 {
                        break;
                    }
                    *sent += n;
                }
                ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
                // hyper never sees the refused head: it reads the end of the connection.
                return Poll::Ready(Ok(()));
            }
            if this.released < this.held.len() && (this.releasing || this.eof) {
                let n = buf.remaining().min(this.held.len() - this.released);
                buf.put_slice(&this.held[this.released..this.released + n]);
                this.released += n;
                if this.released == this.held.len() {
                    this.held.clear();
                    this.released = 0;
                    this.releasing = false;
                }
                return Poll::Ready(Ok(()));
            }
            if this.closed {
                return Poll::Ready(Ok(()));
            }
            if this.head.done || this.eof {
                this.deadline = None;
                return Pin::new(&mut this.inner).poll_read(cx, buf);
            }
            let deadline = this
                .deadline
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(head_timeout())));
            if deadline.as_mut().poll(cx).is_ready() {
                this.deadline = None;
                this.held.clear();
                if this.head.total == 0 {
                    // Idle between requests: close without a word, as a client may expect.
                    this.closed = true;
                    return Poll::Ready(Ok(()));
                }
                this.answer = Some((response(408, "the request head did not arrive in time"), 0));
                continue;
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let got = read.filled();
            if got.is_empty() {
                this.eof = true;
                continue;
            }
            match this.head.scan(got) {
                Some((status, message)) => {
                    this.held.clear();
                    this.answer = Some((response(status, &message), 0));
                }
                None => {
                    this.held.extend_from_slice(got);
                    this.releasing = this.head.done;
                }
            }
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.answer.is_some() {
            // The connection has had its answer; nothing hyper writes may follow it.
            return Poll::Ready(Ok(bytes.len()));
        }
        // hyper answers once it has read a whole head: the next bytes begin the next one.
        this.head = Head::default();
        this.deadline = None;
        Pin::new(&mut this.inner).poll_write(cx, bytes)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_measured_line_by_line() {
        let mut h = Head::default();
        assert_eq!(h.scan(b"\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n"), None);
        assert!(h.done);
        let mut h = Head::default();
        let post = b"POST /api/rate HTTP/1.1\r\nContent-Length: 0\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(h.scan(post), None);
        let mut h = Head::default();
        let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_REQUEST_LINE));
        assert_eq!(h.scan(long.as_bytes()).map(|(s, _)| s), Some(414));
        let mut h = Head::default();
        let mut head = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..MAX_HEAD / 20 {
            head.extend(format!("x-h{i}: {}\r\n", "v".repeat(20)).bytes());
        }
        assert_eq!(h.scan(&head).map(|(s, _)| s), Some(431));
        for bad in [
            &b"\x00\x01\x02 garbage\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
            b"GET /a b HTTP/1.1\r\n\r\n",
            b"GET /api/like?title=a b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            b"GET /\xff HTTP/1.1\r\n\r\n",
            b"GET / HTTP/2.0\r\n\r\n",
            b"POST /api/rate HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
            b"POST /api/rate HTTP/1.1\r\ncontent-length: -1\r\n\r\n",
            b"POST /api/rate HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        ] {
            assert_eq!(
                Head::default().scan(bad).map(|(s, _)| s),
                Some(400),
                "{bad:?}"
            );
        }
    }
}
