//! The connection string as a lab's PostgreSQL users write it for libpq: its parameters checked
//! by name before rust-postgres reads them, so a mistake names the parameter and what to do;
//! libpq's six TLS modes; and libpq's environment (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`,
//! `PGSSLMODE`) as defaults for what the string leaves out, the string always winning.

use std::ops::Range;

use postgres::Config;
use postgres::config::SslMode;

use super::StoreError;
use super::connect::redact;

/// One `key=value` of a connection string, and where its value is in the text.
#[derive(Debug, PartialEq)]
struct Param {
    key: String,
    value: String,
    span: Range<usize>,
}

/// The parameters rust-postgres reads.
const KNOWN: &[&str] = &[
    "user",
    "password",
    "dbname",
    "host",
    "hostaddr",
    "port",
    "sslmode",
    "connect_timeout",
    "application_name",
    "options",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "tcp_user_timeout",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
    "sslnegotiation",
];

/// libpq parameters this client takes from elsewhere or not at all, with what to do instead.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "sslrootcert",
        "name the certificate authorities' PEM file in PGSSLROOTCERT instead",
    ),
    ("passfile", "name the password file in PGPASSFILE instead"),
    (
        "sslcert",
        "client certificates are not supported: log in with a password",
    ),
    (
        "sslkey",
        "client certificates are not supported: log in with a password",
    ),
];

/// What `sslmode` may say: libpq's six modes, as this client carries them out.
const SSL_MODES: &str = "disable, allow or prefer (no TLS), or require, verify-ca or \
                         verify-full (TLS, the server's certificate and host name verified)";

/// libpq's `sslmode` value as this client carries it out, and the value rust-postgres reads
/// for it. Every TLS mode verifies the certificate and the host name, so `verify-full` is what
/// `require` does; `allow` and `prefer` connect without TLS.
fn ssl_mode(value: &str) -> Option<(SslMode, &'static str)> {
    match value {
        "disable" => Some((SslMode::Disable, "disable")),
        "allow" | "prefer" => Some((SslMode::Prefer, "prefer")),
        "require" | "verify-ca" | "verify-full" => Some((SslMode::Require, "require")),
        _ => None,
    }
}

/// `value` quoted for a message when it is short and plain (a mistyped mode, a key), never
/// text that could be part of a password.
fn shown(value: &str) -> String {
    let plain = value.len() <= 32
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if plain {
        format!("{value:?}")
    } else {
        "a value".to_string()
    }
}

/// The parameters of the URL form (`?key=value&...`), and where its host list is. The userinfo
/// runs to the first `@`, as rust-postgres reads it.
fn scan_url(text: &str) -> (Range<usize>, Vec<Param>) {
    let start = text.find("://").map_or(0, |i| i + 3);
    let at = text[start..].find('@').map_or(start, |i| start + i + 1);
    let host_end = text[at..].find(['/', '?']).map_or(text.len(), |i| at + i);
    let mut params = Vec::new();
    if let Some(q) = text[host_end..].find('?') {
        let mut offset = host_end + q + 1;
        for piece in text[offset..].split('&') {
            let (key, span) = match piece.find('=') {
                Some(eq) => (&piece[..eq], offset + eq + 1..offset + piece.len()),
                None => (piece, offset + piece.len()..offset + piece.len()),
            };
            params.push(Param {
                key: key.to_string(),
                value: text[span.clone()].to_string(),
                span,
            });
            offset += piece.len() + 1;
        }
    }
    (at..host_end, params)
}

/// The parameters of libpq's `key=value` form: values bare or in single quotes, `\` escaping
/// the next character. A malformed rest is left to rust-postgres to report.
fn scan_pairs(text: &str) -> Vec<Param> {
    let mut params = Vec::new();
    let mut chars = text.char_indices().peekable();
    let skip_space = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_space(&mut chars);
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        skip_space(&mut chars);
        if key.is_empty() || chars.next_if(|(_, c)| *c == '=').is_none() {
            return params;
        }
        skip_space(&mut chars);
        let from = chars.peek().map_or(text.len(), |(i, _)| *i);
        let quoted = chars.next_if(|(_, c)| *c == '\'').is_some();
        let mut value = String::new();
        let mut to = text.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, n)| n)),
                '\'' if quoted => {
                    to = i + 1;
                    break;
                }
                c if c.is_whitespace() && !quoted => {
                    to = i;
                    break;
                }
                c => value.push(c),
            }
        }
        params.push(Param {
            key,
            value,
            span: from..to,
        });
    }
}

/// A bad setting of the environment: an input mistake (exit 2) naming the variable.
fn bad_env(name: &str, value: &str, what: &str) -> StoreError {
    StoreError::BadEnv(format!("{name}={}: {what}, or unset {name}", shown(value)))
}

/// Where settings are read: the process's environment, or a test's own.
pub(super) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A non-empty variable of the process's environment.
pub(super) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// `PGPORT`'s ports, checked.
fn env_ports(var: Env) -> Result<Vec<u16>, StoreError> {
    let Some(value) = var("PGPORT") else {
        return Ok(Vec::new());
    };
    value
        .split(',')
        .map(|p| p.trim().parse::<u16>().ok().filter(|p| *p > 0))
        .collect::<Option<Vec<u16>>>()
        .ok_or_else(|| {
            bad_env(
                "PGPORT",
                &value,
                "not a port number: give one from 1 to 65535",
            )
        })
}

/// `PGPORT` names neither one port nor one per host.
fn unpaired(ports: usize, hosts: usize) -> StoreError {
    StoreError::BadEnv(format!(
        "PGPORT names {ports} ports for {hosts} hosts: give one port, or one per host, or unset \
         PGPORT"
    ))
}

/// The text rust-postgres is to read for `url` (a libpq TLS mode it does not spell, or
/// `PGPORT` for hosts the URL gives without a port, written in), and the TLS mode asked for by
/// the string, else by `PGSSLMODE`. An unknown parameter or mode is [`StoreError::BadUrl`].
pub(super) fn prepare(url: &str, var: Env) -> Result<(String, Option<SslMode>), StoreError> {
    let is_url = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let (hosts, params) = if is_url {
        scan_url(url)
    } else {
        (0..0, scan_pairs(url))
    };
    let bad = |what: String| StoreError::BadUrl(format!("the store URL {:?} {what}", redact(url)));
    let mut text = url.to_string();
    let mut mode = None;
    // From the last parameter back, so that a splice leaves the earlier spans where they are.
    for p in params.iter().rev() {
        if let Some((_, instead)) = ELSEWHERE.iter().find(|(k, _)| *k == p.key) {
            return Err(bad(format!(
                "sets {}, which this client does not read: {instead}",
                p.key
            )));
        }
        if !KNOWN.contains(&p.key.as_str()) {
            return Err(bad(format!(
                "has the parameter {}, which PostgreSQL clients do not know (misspelt?): remove \
                 it; the ones read here are {}",
                shown(&p.key),
                KNOWN.join(", ")
            )));
        }
        if p.key == "sslmode" && mode.is_none() {
            let Some((m, spelt)) = ssl_mode(&p.value) else {
                return Err(bad(format!(
                    "has sslmode={}, which is not a TLS mode: give {SSL_MODES}",
                    shown(&p.value)
                )));
            };
            text.replace_range(p.span.clone(), spelt);
            mode = Some(m);
        }
    }
    if mode.is_none()
        && let Some(value) = var("PGSSLMODE")
    {
        let Some((m, _)) = ssl_mode(value.trim()) else {
            return Err(bad_env(
                "PGSSLMODE",
                &value,
                &format!("not a TLS mode: give {SSL_MODES}"),
            ));
        };
        mode = Some(m);
    }
    // rust-postgres gives a URL's host without a port 5432: PGPORT comes first, as in libpq.
    let names_port = |chunk: &str| match chunk.rfind(']') {
        Some(close) => chunk[close..].contains(':'),
        None => chunk.contains(':'),
    };
    let port_param = params.iter().any(|p| p.key == "port");
    let given: Vec<&str> = url[hosts.clone()].split(',').collect();
    if !hosts.is_empty() && !port_param && !given.iter().any(|h| names_port(h)) {
        let ports = env_ports(var)?;
        if ports.is_empty() {
            return Ok((text, mode));
        }
        if ports.len() != 1 && ports.len() != given.len() {
            return Err(unpaired(ports.len(), given.len()));
        }
        let with_ports: Vec<String> = given
            .iter()
            .enumerate()
            .map(|(i, h)| format!("{h}:{}", ports[i.min(ports.len() - 1)]))
            .collect();
        text.replace_range(hosts, &with_ports.join(","));
    }
    Ok((text, mode))
}

/// `PGHOST`, `PGPORT`, `PGDATABASE` and `PGUSER` (then `USER`) for what `config` leaves out.
pub(super) fn apply_env(config: &mut Config, url: &str, var: Env) -> Result<(), StoreError> {
    if config.get_hosts().is_empty() {
        // libpq would try the socket directory it was built with; this client knows none, so
        // the host (or a socket's directory) must be named.
        let Some(hosts) = var("PGHOST") else {
            return Err(StoreError::BadUrl(format!(
                "the store URL {:?} names no host: give one, as in \
                 postgres://USER@HOST[:PORT]/DB (or set PGHOST)",
                redact(url)
            )));
        };
        for host in hosts.split(',') {
            config.host(host.trim());
        }
    }
    if config.get_ports().is_empty() {
        let ports = env_ports(var)?;
        let hosts = config.get_hosts().len();
        if ports.len() > 1 && ports.len() != hosts {
            return Err(unpaired(ports.len(), hosts));
        }
        for port in ports {
            config.port(port);
        }
    }
    if config.get_dbname().is_none()
        && let Some(db) = var("PGDATABASE")
    {
        config.dbname(db.trim());
    }
    if config.get_user().is_none() {
        let user = var("PGUSER")
            .or_else(|| var("USER"))
            .unwrap_or_else(|| "postgres".into());
        config.user(user.trim());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parameters_are_found_where_they_are() {
        let url = "postgres://ann:p?w@db.lab,db2:5433/papers?sslmode=verify-full&x";
        let (hosts, params) = scan_url(url);
        assert_eq!(&url[hosts], "db.lab,db2:5433");
        assert_eq!(params.len(), 2);
        assert_eq!(
            (params[0].key.as_str(), params[0].value.as_str()),
            ("sslmode", "verify-full")
        );
        assert_eq!(&url[params[0].span.clone()], "verify-full");
        assert_eq!(params[1].key, "x");
        let (hosts, params) = scan_url("postgresql://");
        assert!(hosts.is_empty() && params.is_empty());
        let (hosts, _) = scan_url("postgres:///papers");
        assert!(hosts.is_empty());
    }

    #[test]
    fn key_value_pairs_are_read_as_libpq_reads_them() {
        let text = "host=db  password = 'a b\\'c' sslmode=require dbname=p\\ q";
        let params = scan_pairs(text);
        let pairs: Vec<(&str, &str)> = params
            .iter()
            .map(|p| (p.key.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("host", "db"),
                ("password", "a b'c"),
                ("sslmode", "require"),
                ("dbname", "p q")
            ]
        );
        assert_eq!(&text[params[1].span.clone()], "'a b\\'c'");
        assert_eq!(&text[params[2].span.clone()], "require");
        // Malformed or unusual input never panics: the rest is rust-postgres's to report.
        for odd in ["=", "a", "a=", "a='unclosed", "é=ü\\", "k=v\\"] {
            scan_pairs(odd);
        }
    }

    /// No environment at all.
    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn libpq_tls_modes_are_read_and_others_named() {
        let (text, mode) = prepare(
            "postgres://ann@db/papers?connect_timeout=3&sslmode=verify-full",
            &none,
        )
        .unwrap();
        assert_eq!(
            text,
            "postgres://ann@db/papers?connect_timeout=3&sslmode=require"
        );
        assert_eq!(mode, Some(SslMode::Require));
        let (text, mode) = prepare("host=db sslmode='verify-ca' user=ann", &none).unwrap();
        assert_eq!(text, "host=db sslmode=require user=ann");
        assert_eq!(mode, Some(SslMode::Require));
        let (_, mode) = prepare("postgres://db/p?sslmode=allow", &none).unwrap();
        assert_eq!(mode, Some(SslMode::Prefer));
        let err = prepare("postgres://ann:s3cret@db/p?sslmode=bogus", &none).unwrap_err();
        assert!(err.is_input());
        let err = err.to_string();
        assert!(
            err.contains("sslmode=\"bogus\"") && err.contains("verify-full"),
            "{err}"
        );
        assert!(!err.contains("s3cret"), "{err}");
        let err = prepare("postgres://db/p?foo=1", &none)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"foo\"") && err.contains("remove"), "{err}");
        let err = prepare("host=db sslrootcert=/ca.pem", &none)
            .unwrap_err()
            .to_string();
        assert!(err.contains("PGSSLROOTCERT"), "{err}");
    }

    #[test]
    fn the_environment_fills_in_what_the_url_leaves_out() {
        let env = |name: &str| {
            let value = match name {
                "PGHOST" => "db.lab",
                "PGPORT" => "5433",
                "PGDATABASE" => "papers",
                "PGUSER" => "ann",
                "PGSSLMODE" => "verify-full",
                _ => return None,
            };
            Some(value.to_string())
        };
        let config = |url: &str| {
            let (text, mode) = prepare(url, &env).unwrap();
            let mut c: Config = text.parse().unwrap();
            if let Some(m) = mode {
                c.ssl_mode(m);
            }
            apply_env(&mut c, url, &env).unwrap();
            c
        };
        for url in [
            "postgres:///",
            "postgresql://",
            "postgres:///papers",
            "host=db.lab",
        ] {
            let c = config(url);
            assert_eq!(
                super::super::Target::of(&c).to_string(),
                "ann@db.lab:5433/papers",
                "{url}"
            );
            assert_eq!(c.get_ssl_mode(), SslMode::Require, "{url}");
        }
        // What the URL names wins, the port of a host without one included.
        let c = config("postgres://bob@other/lib?sslmode=disable");
        assert_eq!(
            super::super::Target::of(&c).to_string(),
            "bob@other:5433/lib"
        );
        assert_eq!(c.get_ssl_mode(), SslMode::Disable);
        let c = config("postgres://other:6000,[::1]/lib");
        assert_eq!(c.get_ports(), [6000, 5432]);
        let c = config("postgres://other,[::1]/lib");
        assert_eq!(c.get_ports(), [5433, 5433]);
        // A bad setting names its variable and is the input's fault.
        let bad = |name: &'static str, value: &'static str| {
            move |n: &str| (n == name).then(|| value.to_string())
        };
        let err = prepare("postgres://db/p", &bad("PGPORT", "54x")).unwrap_err();
        assert!(
            err.is_input() && err.to_string().contains("PGPORT"),
            "{err}"
        );
        let err = prepare("postgres://a,b,c/p", &bad("PGPORT", "1,2")).unwrap_err();
        assert!(
            err.is_input() && err.to_string().contains("2 ports for 3 hosts"),
            "{err}"
        );
        let err = prepare("postgres://db/p", &bad("PGSSLMODE", "on")).unwrap_err();
        assert!(
            err.is_input() && err.to_string().contains("PGSSLMODE"),
            "{err}"
        );
        let err = prepare("postgres:///p", &none)
            .and_then(|(t, _)| apply_env(&mut t.parse().unwrap(), "postgres:///p", &none))
            .unwrap_err();
        assert!(err.to_string().contains("names no host"), "{err}");
    }
}
