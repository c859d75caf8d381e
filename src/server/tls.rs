//! TLS built in (`serve --tls-cert FILE --tls-key FILE`): rustls with the `ring` provider,
//! HTTP/2 or HTTP/1.1 chosen by ALPN, the certificate and key read again on SIGHUP (a renewed
//! certificate without a restart; a file that fails to load keeps the previous one).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arc_swap::ArcSwap;
use rustls_pki_types::pem::{self, PemObject};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, ServerConfig};

/// Why the certificate or key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read the TLS certificate chain {}: {source}", path.display())]
    Certificate { path: PathBuf, source: pem::Error },
    #[error("the TLS certificate file {} holds no certificate", .0.display())]
    NoCertificate(PathBuf),
    #[error("cannot read the TLS private key {}: {source}", path.display())]
    Key { path: PathBuf, source: pem::Error },
    #[error("the TLS certificate and key cannot be used: {0}")]
    Config(#[from] rustls::Error),
}

/// The certificate and key files and the acceptor made from them.
pub struct Tls {
    certificate: PathBuf,
    key: PathBuf,
    acceptor: ArcSwap<TlsAcceptor>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("certificate", &self.certificate)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Tls {
    /// Reads the PEM certificate chain and private key.
    pub fn load(certificate: &Path, key: &Path) -> Result<Arc<Tls>, TlsError> {
        let acceptor = acceptor(certificate, key)?;
        Ok(Arc::new(Tls {
            certificate: certificate.to_path_buf(),
            key: key.to_path_buf(),
            acceptor: ArcSwap::from_pointee(acceptor),
        }))
    }

    /// Reads the files again; on failure the previous certificate stays in use.
    pub fn reload(&self) -> Result<(), TlsError> {
        let acceptor = acceptor(&self.certificate, &self.key)?;
        self.acceptor.store(Arc::new(acceptor));
        Ok(())
    }

    /// The acceptor of new connections.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::clone(&self.acceptor.load())
    }
}

fn acceptor(certificate: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let cert_error = |source| TlsError::Certificate {
        path: certificate.to_path_buf(),
        source,
    };
    let chain = CertificateDer::pem_file_iter(certificate)
        .map_err(cert_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(cert_error)?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate(certificate.to_path_buf()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|source| TlsError::Key {
        path: key.to_path_buf(),
        source,
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Reloads `tls` at every SIGHUP, for the life of the process.
pub fn reload_on_hangup(tls: Arc<Tls>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        // Registered before this returns, so that a SIGHUP from now on never ends the process.
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot watch SIGHUP: the TLS certificate will not be reloaded");
            return;
        };
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                match tls.reload() {
                    Ok(()) => tracing::info!("TLS certificate reloaded"),
                    Err(error) => {
                        tracing::warn!(%error, "TLS reload failed: the previous certificate stays")
                    }
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = tls;
}
