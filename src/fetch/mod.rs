//! Downloads of the official list files: conditional requests, size caps, timeouts, retries.
