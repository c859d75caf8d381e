//! A large text batch read line by line, in bounded memory: what `watchlist import` reads a
//! customer file of any length with (ten million lines and more), where [`super::parse_input`]
//! holds the whole input and refuses more than [`super::MAX_ROWS`] rows.
//!
//! The layout (delimiter, header, name column) is decided from the first lines exactly as
//! for a whole batch ([`super::table::layout`]); then each physical line is one row, with its
//! 1-based line number. Streamed files are UTF-8 (a BOM is skipped): a line holding invalid
//! UTF-8 is a refused row, as is a line whose quotes do not close on it (a quoted cell
//! cannot span lines here). Inputs that need the whole-file reader (JSON, UTF-16, a legacy
//! encoding found in the first lines) are left to it: [`open`] answers `None`.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::table::{self, Layout};
use super::{BatchError, BatchItem, InputOptions, RawRow, item};

/// Bytes read from the start of a file to decide its layout and encoding.
const SAMPLE_BYTES: u64 = 64 * 1024;
/// The longest line read; a longer one is a refused row (its rest is skipped).
const MAX_LINE_BYTES: usize = 64 * 1024;

/// The rows of a streamed file, in file order.
pub struct RowStream<R> {
    reader: R,
    layout: Layout,
    kind: Option<crate::api::screening::KindFilter>,
    line: u64,
    header_pending: bool,
    buf: Vec<u8>,
}

/// Opens `path` for streaming, or `None` when the whole-file reader must read it.
pub fn open(
    path: &Path,
    options: &InputOptions,
) -> Result<Option<RowStream<BufReader<File>>>, BatchError> {
    let read_error = |e: std::io::Error| BatchError::Read(format!("{}: {e}", path.display()));
    let mut file = File::open(path).map_err(read_error)?;
    let mut sample = Vec::new();
    (&mut file)
        .take(SAMPLE_BYTES)
        .read_to_end(&mut sample)
        .map_err(read_error)?;
    let Some(text) = streamable(&sample) else {
        return Ok(None);
    };
    let layout = table::layout(text, options.column.as_deref(), options.lines)?;
    file.seek(SeekFrom::Start(0)).map_err(read_error)?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    skip_bom(&mut reader).map_err(read_error)?;
    let header_pending = match &layout {
        Layout::Lines { header } => *header,
        Layout::Table(t) => t.header.is_some(),
    };
    Ok(Some(RowStream {
        reader,
        layout,
        kind: options.kind,
        line: 0,
        header_pending,
        buf: Vec::new(),
    }))
}

/// The sample as text when the file can be streamed: UTF-8 without zero bytes, not JSON.
/// The last (possibly cut) line of a full sample is left out.
fn streamable(sample: &[u8]) -> Option<&str> {
    let sample = sample.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(sample);
    if encoding_rs::Encoding::for_bom(sample).is_some() || sample.contains(&0) {
        return None;
    }
    let whole = match sample.iter().rposition(|&b| b == b'\n') {
        Some(end) if sample.len() as u64 >= SAMPLE_BYTES - 3 => &sample[..=end],
        _ => sample,
    };
    let text = std::str::from_utf8(whole).ok()?;
    let start = text.trim_start();
    (!start.starts_with('[') && !start.starts_with('{')).then_some(text)
}

/// Passes over the rest of a line, kept nowhere: a line with no end (gigabytes without a
/// line break) costs no memory.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let len = buf.len();
                reader.consume(len);
            }
        }
    }
}

fn skip_bom(reader: &mut impl BufRead) -> std::io::Result<()> {
    if reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
        reader.consume(3);
    }
    Ok(())
}

impl<R: BufRead> RowStream<R> {
    /// How the input is read (`UTF-8, comma-separated, name column "name"`).
    pub fn describe(&self) -> String {
        format!("UTF-8, {}", self.layout.describe())
    }

    /// The next physical line, without its line break; `None` at the end.
    fn next_line(&mut self) -> std::io::Result<Option<Result<String, String>>> {
        self.buf.clear();
        let read = (&mut self.reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.len() > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
            skip_line(&mut self.reader)?;
            return Ok(Some(Err(format!(
                "the line is longer than {} KiB",
                MAX_LINE_BYTES / 1024
            ))));
        }
        let bytes = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.to_owned()),
            Err(e) => Err(format!(
                "invalid UTF-8 byte 0x{:02X}",
                bytes.get(e.valid_up_to()).copied().unwrap_or(0)
            )),
        }))
    }

    /// The row of one non-blank line (`None`: the header, skipped).
    fn row(&mut self, text: Result<String, String>) -> Option<RawRow> {
        let line = Some(self.line);
        let text = match text {
            Ok(text) => text,
            Err(why) => {
                self.header_pending = false;
                return Some(RawRow {
                    line,
                    error: Some(why),
                    ..RawRow::default()
                });
            }
        };
        if std::mem::take(&mut self.header_pending) {
            return None;
        }
        Some(table::line_row(&text, self.line, &self.layout))
    }
}

impl<R: BufRead> Iterator for RowStream<R> {
    type Item = Result<BatchItem, BatchError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let text = match self.next_line() {
                Ok(Some(text)) => text,
                Ok(None) => return None,
                Err(e) => return Some(Err(BatchError::Read(e.to_string()))),
            };
            if text.as_ref().is_ok_and(|t| t.trim().is_empty()) {
                continue;
            }
            if let Some(row) = self.row(text) {
                return Some(Ok(item(row, self.kind)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    fn stream(content: &[u8]) -> Vec<(u64, String, Option<String>)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.csv");
        std::fs::File::create(&path)
            .unwrap()
            .write_all(content)
            .unwrap();
        open(&path, &InputOptions::default())
            .unwrap()
            .expect("streamable")
            .map(|i| {
                let i = i.unwrap();
                (i.line.unwrap(), i.name, i.error)
            })
            .collect()
    }

    #[test]
    fn a_table_is_read_row_by_row_with_its_physical_lines() {
        let rows = stream(
            b"\xEF\xBB\xBFcustomer_id,full_name,country\r\n1,Ana Lima,BR\r\n\r\n2,\"Smith, John\",GB\n4,,GB\n",
        );
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[0], (2, "Ana Lima".to_owned(), None));
        assert_eq!(rows[1], (4, "Smith, John".to_owned(), None));
        assert_eq!(rows[2].0, 5);
        assert!(rows[2].2.is_some(), "an empty name is refused: {rows:?}");
    }

    #[test]
    fn a_line_of_invalid_utf8_after_the_sample_is_one_refused_row() {
        let mut content = b"name\n".to_vec();
        while content.len() <= SAMPLE_BYTES as usize {
            content.extend(b"Ana Lima\n");
        }
        let before = content.iter().filter(|&&b| b == b'\n').count() as u64;
        content.extend(b"Jos\xE9 \xFF\nJoao Silva\n");
        let rows = stream(&content);
        let refused: Vec<_> = rows.iter().filter(|r| r.2.is_some()).collect();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(refused[0].0, before + 1);
        assert_eq!(refused[0].2.as_deref(), Some("invalid UTF-8 byte 0xE9"));
        assert_eq!(
            rows.last().unwrap(),
            &(before + 2, "Joao Silva".to_owned(), None)
        );
    }

    #[test]
    fn one_name_per_line_and_what_needs_the_whole_file_reader() {
        let rows = stream(b"name\nAna Lima\n\n\"Banco Nacional de Cuba\"\n");
        assert_eq!(
            rows,
            vec![
                (2, "Ana Lima".to_owned(), None),
                (4, "Banco Nacional de Cuba".to_owned(), None)
            ]
        );
        assert!(streamable(b"[{\"name\": \"x\"}]").is_none());
        assert!(streamable(b"\xFF\xFEa\x00").is_none());
        assert!(streamable(b"caf\xE9\n").is_none());
        assert!(streamable(b"Ana Lima\n").is_some());
    }

    #[test]
    fn a_line_passed_over_ends_at_its_break_or_the_input() {
        let mut long = vec![b'x'; 3 * 8192 + 5];
        long.extend(b"\nnext\n");
        let mut reader = std::io::BufReader::with_capacity(8192, long.as_slice());
        skip_line(&mut reader).unwrap();
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "next\n");
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x').take(1 << 20));
        skip_line(&mut endless).unwrap();
        assert!(endless.fill_buf().unwrap().is_empty());
    }

    #[test]
    fn an_overlong_line_is_one_refused_row() {
        let mut content = b"name\nAna Lima\n".to_vec();
        content.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        content.extend(b"\nJoao Silva\n");
        let rows = stream(&content);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[1].0, 3);
        assert!(rows[1].2.as_deref().unwrap().contains("longer"), "{rows:?}");
        assert_eq!(rows[2], (4, "Joao Silva".to_owned(), None));
    }
}
