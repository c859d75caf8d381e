//! A streaming XML reader shared by the EU and UN parsers: it walks the file with quick-xml
//! and hands over each record element (`<sanctionEntity>`, `<INDIVIDUAL>`...) as a small
//! owned tree, so memory stays bounded by one record. Errors carry the line number and the
//! record being read.

use crate::text::line_at;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, escape::resolve_predefined_entity};

use super::super::SourceError;

/// One element of a record: local name, attributes, text and children.
#[derive(Debug, Default)]
pub struct Node {
    pub name: String,
    attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Node>,
}

impl Node {
    /// The attribute's value, or "" when absent.
    pub fn attr(&self, key: &str) -> &str {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The children called `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The first child called `name`.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The text of the first child called `name`, or "".
    pub fn text_of(&self, name: &str) -> &str {
        self.child(name).map_or("", |c| c.text.as_str())
    }

    /// `<name logicalId="13">` or `<INDIVIDUAL> DATAID 123`, for error positions.
    fn describe(&self) -> String {
        let id = self.attr("logicalId");
        if !id.is_empty() {
            return format!("<{} logicalId=\"{id}\">", self.name);
        }
        match self.text_of("DATAID").trim() {
            "" => format!("<{}>", self.name),
            id => format!("<{}> DATAID {id}", self.name),
        }
    }
}

/// Reads `text` (the file `file`), checks its root element is `root`, and calls `on_record`
/// for every element named in `records` (at any depth). Returns the root element's
/// attributes (as a childless node) and the number of records seen.
pub fn read_records(
    file: &str,
    text: &str,
    root: &str,
    records: &[&str],
    mut on_record: impl FnMut(Node) -> Result<(), SourceError>,
) -> Result<(Node, usize), SourceError> {
    let mut reader = Reader::from_str(text);
    let line = |offset: u64| line_at(text.as_bytes(), offset);
    let mut root_node: Option<Node> = None;
    let mut depth = 0usize;
    // The record being built: its open elements, outermost first.
    let mut open: Vec<Node> = Vec::new();
    let mut count = 0usize;
    loop {
        let before = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let at = line(reader.error_position());
            let position = match open.first() {
                Some(rec) => format!("line {at} (in {})", rec.describe()),
                None => format!("line {at}"),
            };
            SourceError::parse(file, position, format!("malformed XML: {e}"))
        })?;
        let err = |msg: String| SourceError::parse(file, format!("line {}", line(before)), msg);
        match event {
            Event::Start(start) if root_node.is_none() => {
                root_node = Some(root_element(&start, root).map_err(err)?);
                depth = 1;
            }
            Event::Empty(start) if root_node.is_none() => {
                root_node = Some(root_element(&start, root).map_err(err)?);
            }
            Event::Start(start) => {
                depth += 1;
                let node = element(&start).map_err(err)?;
                if !open.is_empty() || records.contains(&node.name.as_str()) {
                    open.push(node);
                }
            }
            Event::Empty(start) => {
                let node = element(&start).map_err(err)?;
                if let Some(parent) = open.last_mut() {
                    parent.children.push(node);
                } else if records.contains(&node.name.as_str()) {
                    count += 1;
                    on_record(node)?;
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if let Some(done) = open.pop() {
                    match open.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => {
                            count += 1;
                            on_record(done)?;
                        }
                    }
                }
            }
            Event::Text(t) => push_text(&mut open, &t.xml10_content()),
            Event::CData(t) => push_text(&mut open, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => resolve_predefined_entity(&r.xml10_content())
                        .map(str::to_owned)
                        .ok_or_else(|| err(format!("unknown entity &{};", r.xml10_content())))?,
                };
                push_text(&mut open, &resolved);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let end = format!("line {}", line(text.trim_end().len() as u64));
    let Some(root_node) = root_node else {
        return Err(SourceError::parse(
            file,
            end,
            format!("no <{root}> element: the file is empty or not XML"),
        ));
    };
    if let Some(rec) = open.first() {
        return Err(SourceError::parse(
            file,
            format!("{end} (in {})", rec.describe()),
            "the file ends inside an element: it is truncated",
        ));
    }
    if depth > 0 {
        return Err(SourceError::parse(
            file,
            end,
            format!("the file ends before </{root}>: it is truncated"),
        ));
    }
    Ok((root_node, count))
}

fn root_element(start: &BytesStart, root: &str) -> Result<Node, String> {
    let node = element(start)?;
    if node.name != root {
        return Err(format!(
            "expected root element <{root}>, found <{}>",
            node.name
        ));
    }
    Ok(node)
}

/// An element's local name and unescaped attributes.
fn element(start: &BytesStart) -> Result<Node, String> {
    let name = start.local_name().as_ref().to_owned();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| format!("bad attribute in <{name}>: {e}"))?;
        let key = attr.key.local_name().as_ref().to_owned();
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute {key} in <{name}>: {e}"))?;
        attrs.push((key, value.into_owned()));
    }
    Ok(Node {
        name,
        attrs,
        ..Node::default()
    })
}

fn push_text(open: &mut [Node], text: &str) {
    if let Some(node) = open.last_mut() {
        node.text.push_str(text);
    }
}
