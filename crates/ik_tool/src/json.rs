//! A tiny JSON value with **ordered** object keys and a deterministic writer.
//!
//! Method: objects are `Vec<(String, Json)>`, written in insertion order, so the same program
//! always writes the same bytes (no hash-map order, no feature-dependent map type). Numbers are
//! integers, `f32` or `f64`, each written with Rust's shortest round-trip formatting.
//!
//! Invariants: the output is valid JSON (RFC 8259): strings are escaped, and a non-finite
//! float (which JSON cannot hold) is written as `null` rather than as an invalid token. Callers
//! that must never lose a number check `is_finite` before building the value.
//!
//! [`Json::parse`] (in `json_parse.rs`) reads JSON text back (keys kept in file order; integers that fit `i64` become
//! [`Json::Int`], other numbers [`Json::F64`]), so a file can be edited and rewritten with every
//! field it had. It rejects invalid text with a message naming the byte offset, never panics,
//! and limits nesting to [`MAX_DEPTH`] levels.

use std::fmt::Write as _;

pub use crate::json_parse::MAX_DEPTH;

/// A JSON value whose objects keep their keys in insertion order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A single-precision number, written with the shortest text that reads back to it.
    F32(f32),
    /// A double-precision number, written with the shortest text that reads back to it.
    F64(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object; keys are written in this order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An empty object.
    pub fn obj() -> Json {
        Json::Obj(Vec::new())
    }

    /// Adds (or replaces) a key of an object and returns it, for chained building.
    /// On a non-object value this does nothing.
    pub fn with(mut self, key: &str, value: impl Into<Json>) -> Json {
        self.set(key, value);
        self
    }

    /// Sets a key of an object, replacing an existing value in place (order kept).
    /// On a non-object value this does nothing.
    pub fn set(&mut self, key: &str, value: impl Into<Json>) {
        if let Json::Obj(entries) = self {
            let value = value.into();
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key.to_string(), value)),
            }
        }
    }

    /// The value of a key of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of a key of an object, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Json::Int(i) => Some(i as f64),
            Json::F32(x) => Some(x as f64),
            Json::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The non-negative integer, if this is one.
    pub fn as_usize(&self) -> Option<usize> {
        match *self {
            Json::Int(i) => usize::try_from(i).ok(),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Json::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// The items, mutably, if this is an array.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// Appends the compact JSON text of this value to `out`.
    pub fn write_to(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::F32(x) => write_float(out, x.is_finite(), &format!("{x}")),
            Json::F64(x) => write_float(out, x.is_finite(), &format!("{x}")),
            Json::Str(s) => write_string(out, s),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_to(out);
                }
                out.push(']');
            }
            Json::Obj(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write_to(out);
                }
                out.push('}');
            }
        }
    }

    /// Indented JSON text (two spaces per level); arrays and objects that hold only scalars
    /// stay on one line, so long label arrays read as one line each.
    pub fn to_pretty_string(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Json::Arr(_) | Json::Obj(_))
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let flat = match self {
            Json::Arr(items) => items.iter().all(Json::is_scalar),
            Json::Obj(entries) => entries.is_empty(),
            _ => true,
        };
        if flat {
            self.write_to(out);
            return;
        }
        let pad = |out: &mut String, d: usize| out.extend(std::iter::repeat_n("  ", d));
        match self {
            Json::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    pad(out, depth + 1);
                    item.write_pretty(out, depth + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, depth);
                out.push(']');
            }
            Json::Obj(entries) => {
                out.push_str("{\n");
                for (i, (key, value)) in entries.iter().enumerate() {
                    pad(out, depth + 1);
                    write_string(out, key);
                    out.push_str(": ");
                    value.write_pretty(out, depth + 1);
                    out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
                }
                pad(out, depth);
                out.push('}');
            }
            _ => self.write_to(out),
        }
    }

    /// The compact JSON text of this value.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }
}

fn write_float(out: &mut String, finite: bool, text: &str) {
    if finite {
        // Rust prints floats without exponents and with a `.` only when needed; both are
        // valid JSON numbers ("-0" included).
        out.push_str(text);
    } else {
        out.push_str("null");
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl From<bool> for Json {
    fn from(v: bool) -> Json {
        Json::Bool(v)
    }
}
impl From<i64> for Json {
    fn from(v: i64) -> Json {
        Json::Int(v)
    }
}
impl From<i32> for Json {
    fn from(v: i32) -> Json {
        Json::Int(v as i64)
    }
}
impl From<u32> for Json {
    fn from(v: u32) -> Json {
        Json::Int(v as i64)
    }
}
impl From<usize> for Json {
    fn from(v: usize) -> Json {
        Json::Int(v as i64)
    }
}
impl From<f32> for Json {
    fn from(v: f32) -> Json {
        Json::F32(v)
    }
}
impl From<f64> for Json {
    fn from(v: f64) -> Json {
        Json::F64(v)
    }
}
impl From<&str> for Json {
    fn from(v: &str) -> Json {
        Json::Str(v.to_string())
    }
}
impl From<String> for Json {
    fn from(v: String) -> Json {
        Json::Str(v)
    }
}
impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(v: Vec<T>) -> Json {
        Json::Arr(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Json> + Copy> From<&[T]> for Json {
    fn from(v: &[T]) -> Json {
        Json::Arr(v.iter().map(|x| (*x).into()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_insertion_order_and_strings_are_escaped() {
        let v = Json::obj().with("z", 1).with("a", "q\"\n").with("m", vec![0.5f32, -2.0]).with("z", true);
        assert_eq!(v.to_json_string(), r#"{"z":true,"a":"q\"\n","m":[0.5,-2]}"#);
        assert_eq!(Json::F32(f32::NAN).to_json_string(), "null");
        assert_eq!(Json::F32(1e-7).to_json_string(), "0.0000001");
        let nested = Json::obj().with("a", Json::obj().with("b", vec![true, false])).with("c", 1);
        assert_eq!(nested.to_pretty_string(), "{\n  \"a\": {\n    \"b\": [true,false]\n  },\n  \"c\": 1\n}");
    }
}
