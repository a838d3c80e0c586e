//! The worker protocol's wire format (docs/protocol.md, version 1): frames, the JSON headers of
//! messages, and literals as headers plus raw little-endian bytes.
//!
//! A frame is a `u64` little-endian length followed by that many bytes. A message is one header
//! frame (a UTF-8 JSON object with a `type`) followed by one data frame per entry of its `inputs`
//! (requests) or `outputs` (results).

use conformance_spec::element_type::ElementType;
use conformance_spec::layout::Layout;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::ArrayShape;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::io::{self, Read, Write};

/// The protocol version this harness speaks: 2 adds modules of several devices (the hello's
/// `devices`, the request's `devices`).
pub const PROTOCOL_VERSION: u64 = 2;

/// The versions a worker may speak: version 1 workers are still served (one-device modules
/// only).
pub const ACCEPTED_PROTOCOLS: &[u64] = &[1, 2];
/// Largest header frame accepted, in bytes (256 MiB).
pub const MAX_HEADER_BYTES: u64 = 256 << 20;
/// Largest data frame accepted, in bytes (16 GiB).
pub const MAX_DATA_BYTES: u64 = 16 << 30;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The stream ended (at a frame boundary when `clean`).
    #[error("the stream ended{}", if *clean { "" } else { " inside a frame" })]
    Closed { clean: bool },
    #[error("reading: {0}")]
    Io(#[from] io::Error),
    /// The bytes are not a message of the protocol.
    #[error("{0}")]
    Malformed(String),
}

/// Writes one frame.
///
/// Errors: the writer's.
pub fn write_frame(w: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    w.write_all(&(bytes.len() as u64).to_le_bytes())?;
    w.write_all(bytes)
}

/// Reads one frame of at most `limit` bytes.
///
/// Errors: [`WireError::Closed`] at end of stream, [`WireError::Malformed`] for a length above
/// `limit`, [`WireError::Io`] otherwise.
pub fn read_frame(r: &mut impl Read, limit: u64) -> Result<Vec<u8>, WireError> {
    let mut len = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        match r.read(&mut len[got..]) {
            Ok(0) => return Err(WireError::Closed { clean: got == 0 }),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let len = u64::from_le_bytes(len);
    if len > limit {
        return Err(WireError::Malformed(format!(
            "a frame of {len} bytes (the limit is {limit})"
        )));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => WireError::Closed { clean: false },
        _ => WireError::Io(e),
    })?;
    Ok(buf)
}

/// What a worker says it supports (the hello's `capabilities`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct WireCapabilities {
    /// `"hlo"` and/or `"stablehlo"`, in order of preference.
    pub module_formats: Vec<String>,
    /// HLO opcode names; `None` means all.
    pub opcodes: Option<Vec<String>>,
    /// HLO element type names; `None` means all.
    pub element_types: Option<Vec<String>>,
    /// `"any"` or `"row-major"`.
    pub layouts: String,
    /// `"preserve"` or `"flush"`.
    pub subnormals: String,
    /// With `"flush"`: the floating-point types whose arithmetic flushes (HLO names); absent
    /// means every floating-point type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnormals_flushed_in: Option<Vec<String>>,
    /// The bit layout of `rng-bit-generator` the worker implements (`"xla"`: XLA's, described in
    /// docs/random.md); absent when it declares none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rng_bit_layout: Option<String>,
    /// Protocol 2: the most devices (`replicas × partitions`) of a module the worker runs;
    /// absent means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<u64>,
}

/// Protocol 2: the device grid of a request's module, sent when it has more than one device.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DevicesHeader {
    pub replicas: u64,
    pub partitions: u64,
}

/// The worker's first message.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Hello {
    pub protocol: u64,
    pub name: String,
    #[serde(default)]
    pub version: String,
    pub capabilities: WireCapabilities,
}

/// A literal's header: its data frame holds the elements in the physical order of
/// `minor_to_major`, unpadded, little-endian.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LiteralHeader {
    pub element_type: String,
    pub dimensions: Vec<i64>,
    pub minor_to_major: Vec<i64>,
}

/// The module texts of a request: every format the worker reads that the harness could print.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ModuleTexts {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hlo: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stablehlo: Option<String>,
}

/// Messages the harness sends.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request<'a> {
    Execute {
        id: u64,
        module: &'a ModuleTexts,
        inputs: Vec<LiteralHeader>,
        /// Present for a module of several devices: `inputs` then hold each device's in turn,
        /// and the reply each device's outputs in turn.
        #[serde(skip_serializing_if = "Option::is_none")]
        devices: Option<DevicesHeader>,
    },
    Shutdown,
}

/// Messages a worker sends (after its hello).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Hello(Hello),
    Result {
        id: u64,
        outputs: Vec<LiteralHeader>,
        /// The worker's own time for running the compiled program (no compilation, no
        /// transfers), in microseconds; optional.
        #[serde(default)]
        execute_micros: Option<u64>,
        /// For a module that writes an outfeed: per device, how many values it wrote (its
        /// outputs are its root's, then those values in order; docs/protocol.md).
        #[serde(default)]
        outfeed: Option<Vec<u64>>,
    },
    Error {
        id: u64,
        kind: String,
        message: String,
    },
}

/// A reply with its data frames (one per output of a result).
#[derive(Debug)]
pub struct Received {
    pub reply: Reply,
    pub data: Vec<Vec<u8>>,
}

/// Reads one message from a worker.
///
/// Errors: as [`read_frame`]; [`WireError::Malformed`] for a header that is not one of the
/// replies of docs/protocol.md.
pub fn read_reply(r: &mut impl Read) -> Result<Received, WireError> {
    let header = read_frame(r, MAX_HEADER_BYTES)?;
    let reply: Reply = serde_json::from_slice(&header).map_err(|e| {
        let shown = String::from_utf8_lossy(&header[..header.len().min(120)]).into_owned();
        WireError::Malformed(format!("a header that is not a reply ({e}): {shown:?}"))
    })?;
    let frames = match &reply {
        Reply::Result { outputs, .. } => outputs.len(),
        _ => 0,
    };
    let data = (0..frames)
        .map(|_| read_frame(r, MAX_DATA_BYTES))
        .collect::<Result<_, _>>()?;
    Ok(Received { reply, data })
}

/// Writes a request: its header, then the data frames of `inputs`.
///
/// Errors: the writer's.
pub fn write_request(
    w: &mut impl Write,
    request: &Request<'_>,
    data: &[impl AsRef<[u8]>],
) -> io::Result<()> {
    let header = serde_json::to_vec(request).map_err(io::Error::other)?;
    write_frame(w, &header)?;
    for d in data {
        write_frame(w, d.as_ref())?;
    }
    w.flush()
}

/// A literal's header and bytes: its own `minor_to_major`, padding removed. The bytes are the
/// literal's own buffer (borrowed, no copy) unless the layout is padded.
pub fn encode_literal(a: &ArrayLiteral) -> (LiteralHeader, Cow<'_, [u8]>) {
    let layout = Layout::new(a.shape().layout.minor_to_major.clone());
    let data = if a.shape().layout.padded_dimensions.is_empty() {
        Cow::Borrowed(a.data())
    } else {
        Cow::Owned(a.relayout(layout.clone()).into_parts().1)
    };
    let header = LiteralHeader {
        element_type: a.element_type().hlo_name().to_string(),
        dimensions: a.dimensions().to_vec(),
        minor_to_major: layout.minor_to_major,
    };
    (header, data)
}

/// The literal a header and data frame describe.
///
/// Errors: an unknown element type, a `minor_to_major` that is not a permutation of the
/// dimensions, negative dimensions, or a data length other than elements × element width.
pub fn decode_literal(header: &LiteralHeader, data: Vec<u8>) -> Result<ArrayLiteral, String> {
    let ty = ElementType::from_hlo_name(&header.element_type)
        .ok_or_else(|| format!("unknown element type `{}`", header.element_type))?;
    let rank = header.dimensions.len();
    if header.dimensions.iter().any(|&d| d < 0) {
        return Err(format!("negative dimensions {:?}", header.dimensions));
    }
    let mut seen = vec![false; rank];
    for &d in &header.minor_to_major {
        match seen.get_mut(d as usize) {
            Some(s) if d >= 0 && !*s => *s = true,
            _ => {
                return Err(format!(
                    "minor_to_major {:?} is not a permutation of 0..{rank}",
                    header.minor_to_major
                ))
            }
        }
    }
    if header.minor_to_major.len() != rank {
        return Err(format!(
            "minor_to_major {:?} is not a permutation of 0..{rank}",
            header.minor_to_major
        ));
    }
    let mut shape = ArrayShape::new(ty, header.dimensions.clone());
    shape.layout = Layout::new(header.minor_to_major.clone());
    ArrayLiteral::from_physical_bytes(shape, data).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_report_truncation() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        write_frame(&mut buf, b"").unwrap();
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r, 100).unwrap(), b"hello");
        assert_eq!(read_frame(&mut r, 100).unwrap(), b"");
        assert!(matches!(
            read_frame(&mut r, 100),
            Err(WireError::Closed { clean: true })
        ));
        let mut cut = &buf[..10];
        assert!(matches!(
            read_frame(&mut cut, 100),
            Err(WireError::Closed { clean: false })
        ));
        let mut big = &buf[..];
        assert!(
            matches!(read_frame(&mut big, 4), Err(WireError::Malformed(m)) if m.contains("limit"))
        );
    }

    #[test]
    fn literals_keep_their_layout_and_drop_padding() {
        let mut shape = ArrayShape::new(ElementType::S16, vec![2, 3]);
        shape.layout = Layout::new(vec![0, 1]);
        let a = ArrayLiteral::from_i128s(shape.clone(), &[1, 2, 3, 4, 5, 6]).unwrap();
        let (h, bytes) = encode_literal(&a);
        assert_eq!(h.minor_to_major, vec![0, 1]);
        // Column-major: 1 4 2 5 3 6.
        let values: Vec<i16> = bytes
            .chunks(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(values, vec![1, 4, 2, 5, 3, 6]);
        let back = decode_literal(&h, bytes.into_owned()).unwrap();
        assert!(back.logical_eq(&a));

        let mut padded = shape;
        padded.layout.padded_dimensions = vec![4, 3];
        let p = a.relayout(padded.layout.clone());
        let (h2, bytes2) = encode_literal(&p);
        assert_eq!(bytes2.len(), 12);
        assert!(decode_literal(&h2, bytes2.into_owned())
            .unwrap()
            .logical_eq(&a));
    }

    #[test]
    fn bad_literal_headers_are_errors() {
        let h = |t: &str, d: Vec<i64>, m: Vec<i64>| LiteralHeader {
            element_type: t.into(),
            dimensions: d,
            minor_to_major: m,
        };
        assert!(decode_literal(&h("f33", vec![1], vec![0]), vec![0; 4])
            .unwrap_err()
            .contains("f33"));
        assert!(
            decode_literal(&h("f32", vec![2, 2], vec![0, 0]), vec![0; 16])
                .unwrap_err()
                .contains("permutation")
        );
        assert!(decode_literal(&h("f32", vec![2, 2], vec![0]), vec![0; 16]).is_err());
        assert!(decode_literal(&h("f32", vec![2, 2], vec![1, 0]), vec![0; 15]).is_err());
        assert!(decode_literal(&h("f32", vec![-1], vec![0]), vec![]).is_err());
    }

    #[test]
    fn replies_parse_with_their_data_frames() {
        let mut buf = Vec::new();
        let header = br#"{"type":"result","id":3,"outputs":[{"element_type":"u8","dimensions":[2],"minor_to_major":[0]}]}"#;
        write_frame(&mut buf, header).unwrap();
        write_frame(&mut buf, &[7, 9]).unwrap();
        write_frame(
            &mut buf,
            br#"{"type":"error","id":4,"kind":"unsupported","message":"no"}"#,
        )
        .unwrap();
        write_frame(&mut buf, b"not json").unwrap();
        let mut r = &buf[..];
        let got = read_reply(&mut r).unwrap();
        assert!(matches!(got.reply, Reply::Result { id: 3, .. }));
        assert_eq!(got.data, vec![vec![7, 9]]);
        assert!(matches!(
            read_reply(&mut r).unwrap().reply,
            Reply::Error { id: 4, .. }
        ));
        assert!(
            matches!(read_reply(&mut r), Err(WireError::Malformed(m)) if m.contains("not json"))
        );
    }
}
