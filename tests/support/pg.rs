//! A real PostgreSQL 16 server with pgvector for the store tests, started in a temp folder on a
//! free loopback port and stopped (then deleted) when dropped, a panicking test included.
//!
//! The binaries come from `$RECOMMEND_PG_BIN`, else from where `scripts/setup.sh` unpacks the
//! pinned `pgserver` wheel (`$RECOMMEND_PG_HOME`, else `${XDG_CACHE_HOME:-~/.cache}/recommend/
//! pgserver`, then `pgserver/pginstall/bin`). Where they are missing, the store tests are compiled
//! as ignored ("skipped: no PostgreSQL", `#[needs_postgres::test]`), so a store test never passes
//! without a server; binaries gone after the build fail the test, naming the set-up script.
//!
//! PostgreSQL refuses to run as root. As root the server runs in a user namespace that maps the
//! caller to an unprivileged uid (`unshare --map-user`): it reads the binaries and owns its data
//! folder as the caller does, and the check sees a normal user.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The superuser the tests connect as, and its password (scram-sha-256 over TCP).
pub const USER: &str = "postgres";
pub const PASSWORD: &str = "store-test-Pw-7f3a";

/// The libpq variables a store command reads beside its URL: removed from every binary a store
/// test runs, so the tester's own environment never picks another server, database or TLS mode.
pub const LIBPQ_ENV: [&str; 7] = [
    "PGHOST",
    "PGPORT",
    "PGDATABASE",
    "PGUSER",
    "PGSSLMODE",
    "PGPASSWORD",
    "PGPASSFILE",
];

/// Where the PostgreSQL binaries are, if anywhere.
pub fn bin_dir() -> Option<PathBuf> {
    let complete = |bin: PathBuf| {
        (bin.join("postgres").is_file() && bin.join("initdb").is_file()).then_some(bin)
    };
    if let Some(dir) = std::env::var_os("RECOMMEND_PG_BIN") {
        return complete(PathBuf::from(dir));
    }
    let home = match std::env::var_os("RECOMMEND_PG_HOME") {
        Some(h) => PathBuf::from(h),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            cache.join("recommend").join("pgserver")
        }
    };
    complete(home.join("pgserver").join("pginstall").join("bin"))
}

/// A running server; stopped and deleted on drop.
pub struct Pg {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub port: u16,
    child: Option<Child>,
}

/// Run `cmd` (`what` in messages) and require success.
fn succeeds(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `program` run as an unprivileged user when we are root (see the module documentation).
fn command(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("unshare");
        c.args(["--map-user=1000", "--map-group=1000", "--"])
            .arg(program);
        c
    } else {
        Command::new(program)
    }
}

impl Pg {
    /// initdb a fresh cluster (password auth for TCP) and start it.
    pub fn start() -> Pg {
        let bin = bin_dir().unwrap_or_else(|| {
            panic!(
                "no PostgreSQL for the store tests: run scripts/setup.sh (it unpacks the pinned \
                 pgserver wheel for x86_64 Linux) or set RECOMMEND_PG_BIN=/path/to/bin \
                 (PostgreSQL 16 with pgvector)"
            )
        });
        let dir = tempfile::Builder::new()
            .prefix("recommend-pg-")
            .tempdir()
            .expect("a temp folder");
        let pwfile = dir.path().join("pw");
        std::fs::File::create(&pwfile)
            .and_then(|mut f| f.write_all(PASSWORD.as_bytes()))
            .expect("write the password file");
        let mut initdb = command(&bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(dir.path().join("data"))
            .args([
                "-U",
                USER,
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
            ])
            .args(["-E", "UTF8", "--no-sync", "--no-instructions", "--pwfile"])
            .arg(&pwfile);
        succeeds(&mut initdb, "initdb");
        std::fs::create_dir_all(dir.path().join("sock")).unwrap();
        let mut pg = Pg {
            bin,
            dir,
            port: free_port(),
            child: None,
        };
        pg.resume();
        pg.sql("postgres", "CREATE EXTENSION IF NOT EXISTS vector");
        pg
    }

    /// Start the server (again, after [`Pg::stop`]) on the same port and data, and wait until it
    /// accepts connections.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "the server is already running");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("server.log"))
            .unwrap();
        let child = command(&self.bin.join("postgres"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .arg("-p")
            .arg(self.port.to_string())
            .arg("-k")
            .arg(self.dir.path().join("sock"))
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .args(["-c", "max_connections=100", "-c", "shared_buffers=64MB"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start postgres");
        self.child = Some(child);
        let start = Instant::now();
        loop {
            if self.try_connect("postgres").is_ok() {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "postgres did not start: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stop the server (fast shutdown: open connections are cut) and wait for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: kill only sends a signal to our own child.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGINT);
            }
            let start = Instant::now();
            while child.try_wait().ok().flatten().is_none() {
                if start.elapsed() > Duration::from_secs(20) {
                    let _ = child.kill();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.wait();
        }
    }

    /// Send `signal` to the server and every process of it (a frozen host: SIGSTOP; back:
    /// SIGCONT).
    pub fn signal_all(&self, signal: i32) {
        let Some(child) = &self.child else { return };
        let main = child.id();
        let mut pids = vec![main];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces.
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            if ppid == Some(main) {
                pids.push(pid);
            }
        }
        for pid in pids {
            // SAFETY: kill only sends a signal to the server's own processes.
            unsafe {
                libc::kill(pid as i32, signal);
            }
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// `postgres://USER:PASSWORD@127.0.0.1:PORT/db`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{db}", self.port)
    }

    /// The same URL without the password (for `PGPASSWORD` and `~/.pgpass` tests).
    pub fn url_without_password(&self, db: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{db}", self.port)
    }

    /// A client of database `db` (a test's own session, beside the binary's).
    pub fn try_connect(&self, db: &str) -> Result<postgres::Client, postgres::Error> {
        postgres::Client::connect(&self.url(db), postgres::NoTls)
    }

    /// Run `sql` (one or more statements) in database `db`.
    pub fn sql(&self, db: &str, sql: &str) {
        let mut c = self.try_connect(db).expect("connect to the test server");
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The rows of `sql` in `db`, each column as text.
    pub fn rows(&self, db: &str, sql: &str) -> Vec<Vec<Option<String>>> {
        let mut c = self.try_connect(db).expect("connect to the test server");
        c.simple_query(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .into_iter()
            .filter_map(|m| match m {
                postgres::SimpleQueryMessage::Row(r) => {
                    Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
                }
                _ => None,
            })
            .collect()
    }

    /// One value of `sql` in `db`, as text.
    pub fn value(&self, db: &str, sql: &str) -> String {
        self.rows(db, sql)
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .unwrap_or_else(|| panic!("{sql}: no value"))
    }

    /// A new empty database `name` (with pgvector unless `vector` is false).
    pub fn create_db(&self, name: &str, vector: bool) {
        self.sql("postgres", &format!("CREATE DATABASE {name}"));
        if vector {
            self.sql(name, "CREATE EXTENSION vector");
        }
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A TLS front for a server built without TLS (the pgserver wheel's PostgreSQL has no OpenSSL):
/// it answers a client's `SSLRequest` with `S`, completes the TLS handshake with a certificate
/// for `127.0.0.1` signed by a test authority (both made by `openssl`), and relays the decrypted
/// bytes to the server's plain port, as PostgreSQL's own TLS would carry them.
pub struct TlsFront {
    pub port: u16,
    /// The authority's PEM file: what a client names in `PGSSLROOTCERT`.
    pub ca: PathBuf,
    /// TLS sessions completed so far.
    pub sessions: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    _dir: tempfile::TempDir,
}

impl TlsFront {
    /// A front on a free loopback port for the server on `upstream`.
    pub fn start(upstream: u16) -> TlsFront {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("ext.cnf"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .unwrap();
        let openssl = |args: &[&str]| {
            succeeds(
                Command::new("openssl").current_dir(d).args(args),
                "openssl (Debian package openssl)",
            )
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=recommend test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ]);
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
            "-out",
            "server.crt",
        ]);
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(d.join("server.crt"))
                .unwrap()
                .map(|c| c.unwrap())
                .collect();
        let key = PrivateKeyDer::from_pem_file(d.join("server.key")).unwrap();
        let config = std::sync::Arc::new(
            rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sessions = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = sessions.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (config, counted) = (config.clone(), counted.clone());
                std::thread::spawn(move || relay(client, upstream, config, &counted));
            }
        });
        TlsFront {
            port,
            ca: d.join("ca.pem"),
            sessions,
            _dir: dir,
        }
    }
}

/// One client of a [`TlsFront`]: the `SSLRequest`, the handshake, then bytes both ways until
/// either side closes. Short read timeouts let one thread serve both directions.
fn relay(
    mut client: std::net::TcpStream,
    upstream: u16,
    config: std::sync::Arc<rustls::ServerConfig>,
    sessions: &std::sync::atomic::AtomicUsize,
) {
    use std::io::{ErrorKind, Read};
    let mut request = [0u8; 8];
    // 8 bytes: length 8, then the SSLRequest code 80877103.
    if client.read_exact(&mut request).is_err() || request != [0, 0, 0, 8, 4, 210, 22, 47] {
        return;
    }
    if client.write_all(b"S").is_err() {
        return;
    }
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, client);
    while tls.conn.is_handshaking() {
        if tls.conn.complete_io(&mut tls.sock).is_err() {
            return;
        }
    }
    sessions.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let Ok(mut server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let tick = Some(Duration::from_millis(2));
    if tls.sock.set_read_timeout(tick).is_err() || server.set_read_timeout(tick).is_err() {
        return;
    }
    let idle = |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match tls.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if server.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => return,
        }
        match server.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tls.write_all(&buf[..n]).and_then(|_| tls.flush()).is_err() {
                    return;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => return,
        }
    }
}
