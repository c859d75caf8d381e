//! TLS built in (issue 26): `serve --tls-cert --tls-key` with a self-signed certificate made
//! here, HTTP/2 by ALPN (HTTP/1.1 still served), plain HTTP refused, and a new certificate
//! taken on SIGHUP without a restart.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server process, killed when dropped (also when an assertion fails).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A self-signed certificate for `localhost` written to `dir`: its PEM.
fn certificate(dir: &Path) -> String {
    let rcgen::CertifiedKey { cert, key_pair } =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key_pair.serialize_pem()).unwrap();
    cert.pem()
}

fn serve(data_dir: &Path, dir: &Path) -> (Server, SocketAddr) {
    let config = common::serve::offline_config(data_dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--config")
        .arg(config)
        .args(["serve", "--bind", "127.0.0.1:0", "--tls-cert"])
        .arg(dir.join("cert.pem"))
        .arg("--tls-key")
        .arg(dir.join("key.pem"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on https://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();
    (Server(child), addr)
}

/// A client trusting only `pem`, reaching `localhost` at `addr`.
fn client(pem: &str, addr: SocketAddr, http1: bool) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(pem.as_bytes()).unwrap())
        .resolve("localhost", addr)
        .timeout(Duration::from_secs(10));
    if http1 {
        builder = builder.http1_only();
    }
    builder.build().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn https_with_http2_and_a_certificate_reloaded_on_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let first = certificate(dir.path());
    let (mut server, addr) = serve(data.path(), dir.path());
    let url = format!("https://localhost:{}/healthz", addr.port());

    let answer = client(&first, addr, false).get(&url).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.version(),
        reqwest::Version::HTTP_2,
        "ALPN chose HTTP/2"
    );
    let answer = client(&first, addr, true).get(&url).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.version(), reqwest::Version::HTTP_11);
    let plain = reqwest::Client::new()
        .get(format!("http://{addr}/healthz"))
        .timeout(Duration::from_secs(10))
        .send()
        .await;
    assert!(plain.is_err(), "plain HTTP answered: {plain:?}");

    // A new certificate (a new key) in the same files, then SIGHUP: new connections get it.
    let second = certificate(dir.path());
    assert!(client(&second, addr, true).get(&url).send().await.is_err());
    let hup = Command::new("kill")
        .args(["-HUP", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    let started = Instant::now();
    loop {
        let answer = client(&second, addr, true).get(&url).send().await;
        if answer.is_ok_and(|a| a.status() == 200) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "not reloaded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(client(&first, addr, true).get(&url).send().await.is_err());
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "the server exited on SIGHUP"
    );

    drop(server);
}
