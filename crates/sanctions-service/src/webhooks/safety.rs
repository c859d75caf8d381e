//! Which webhook URLs may be called: absolute http(s) URLs, and in server mode only those
//! resolving to public addresses (no loopback, private, link-local, metadata or other
//! special-purpose ranges) unless `[webhooks] allow_private_targets` is set.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::Url;

/// Longest URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// Parses a webhook URL: absolute, http or https, with a host, no credentials.
pub fn parse_url(text: &str) -> Result<Url, String> {
    let text = text.trim();
    if text.len() > MAX_URL_LEN {
        return Err(format!("longer than {MAX_URL_LEN} characters"));
    }
    let url = Url::parse(text).map_err(|e| format!("not an absolute URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("scheme {} is not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("no host".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("credentials in the URL are not accepted".to_owned());
    }
    Ok(url)
}

/// True for addresses a server must not call on a user's behalf.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return private_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) // AWS metadata
                || (first == 0x64 && v6.segments()[1] == 0xff9b) // NAT64 of any v4
                || first == 0x2001 && v6.segments()[1] == 0xdb8 // documentation
        }
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local() // includes 169.254.169.254, the cloud metadata address
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT
        || (a == 192 && b == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

/// Resolves the URL's host. With `allow_private` false, refuses it when any address it
/// resolves to is private; returns the addresses so that the caller connects to exactly
/// the ones checked (DNS may answer differently a moment later).
pub async fn resolve_checked(url: &Url, allow_private: bool) -> Result<Vec<SocketAddr>, String> {
    let host = url.host_str().ok_or("no host")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| format!("cannot resolve {host}: {e}"))?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    if !allow_private && let Some(bad) = addrs.iter().find(|a| is_private(a.ip())) {
        return Err(format!(
            "{host} resolves to {}, a loopback, private, link-local or metadata address; \
             set [webhooks] allow_private_targets = true to allow it",
            bad.ip()
        ));
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_must_be_absolute_http() {
        assert!(parse_url("https://example.com/hook").is_ok());
        assert!(parse_url("http://127.0.0.1:8080/x").is_ok());
        assert!(parse_url("ftp://example.com").is_err());
        assert!(parse_url("/relative").is_err());
        assert!(parse_url("https://user:pw@example.com").is_err());
        assert!(parse_url(&format!("https://e.com/{}", "a".repeat(3000))).is_err());
    }

    #[test]
    fn private_ranges() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "fd00:ec2::254",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn loopback_refused_unless_allowed() {
        let url = parse_url("http://127.0.0.1:9/x").unwrap();
        assert!(resolve_checked(&url, false).await.is_err());
        assert_eq!(resolve_checked(&url, true).await.unwrap().len(), 1);
        let url = parse_url("http://[::1]:9/x").unwrap();
        assert!(resolve_checked(&url, false).await.is_err());
    }
}
