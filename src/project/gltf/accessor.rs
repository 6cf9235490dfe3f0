//! Buffers, buffer views and accessors, every offset, stride and count checked against the bytes
//! that are really there before anything is allocated or read.
use super::Errors;
use crate::base::path::resolve_relative;
use crate::project::Resources;
use base64::Engine;
use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

/// Accessors without a buffer view (all zeros plus sparse values) allocate `count` elements with no
/// bytes behind them; this caps what a hostile count can ask for.
const MAX_ZEROED_BYTES: u64 = 64 << 20;

/// What one import may decode, whatever the file declares: [`BUDGET_BASE`] plus
/// [`BUDGET_PER_BYTE`] times the bytes the file brought (GLB, buffers, images), at most
/// [`BUDGET_MAX`]. Every accessor is within its buffer, but one accessor can be named by a million
/// morph targets, nodes or channels; without a total, a 40 MB file asks for terabytes and the
/// allocator aborts the process, which no error handling can catch.
pub(crate) const BUDGET_BASE: u64 = 64 << 20;
pub(crate) const BUDGET_PER_BYTE: u64 = 8;
pub(crate) const BUDGET_MAX: u64 = 4 << 30;

/// The decode budget of one import, charged before each allocation it covers.
pub(crate) struct Budget {
    input: Cell<u64>,
    used: Cell<u64>,
    refused: Cell<bool>,
}

impl Budget {
    pub fn new(input_bytes: u64) -> Self {
        Budget { input: Cell::new(input_bytes), used: Cell::new(0), refused: Cell::new(false) }
    }
    /// Bytes read from other files (external images) widen the budget as the file's own do.
    pub fn add_input(&self, bytes: u64) {
        self.input.set(self.input.get().saturating_add(bytes));
    }
    pub fn limit(&self) -> u64 {
        BUDGET_BASE.saturating_add(self.input.get().saturating_mul(BUDGET_PER_BYTE)).min(BUDGET_MAX)
    }
    /// Records `bytes` about to be allocated for `what`, or refuses them (and records nothing).
    /// Only the first refusal explains the budget; the many that usually follow are one-liners.
    pub fn charge(&self, bytes: u64, what: &str) -> Result<(), String> {
        let total = self.used.get().saturating_add(bytes);
        if total > self.limit() {
            if self.refused.replace(true) {
                return Err(format!("{what}: past the import budget too"));
            }
            return Err(format!(
                "{what}: needs {bytes} bytes, which passes the import budget of {} bytes \
                 ({} MiB + {BUDGET_PER_BYTE} x the {} bytes of data, at most {} GiB; {} already used)",
                self.limit(),
                BUDGET_BASE >> 20,
                self.input.get(),
                BUDGET_MAX >> 30,
                self.used.get()
            ));
        }
        self.used.set(total);
        Ok(())
    }
}

/// The bytes of every buffer, each at least its declared `byteLength`. Buffers that name the same
/// URI share one copy (`slot` maps a buffer to its bytes), so a list of a million buffers naming
/// one big file reads it once.
pub(crate) struct Buffers<'a> {
    data: Vec<Cow<'a, [u8]>>,
    slot: Vec<usize>,
}

impl<'a> Buffers<'a> {
    pub fn load(
        src: &str,
        root: &json::Root,
        bin: Option<&'a [u8]>,
        res: Option<&Resources>,
        errs: &mut Errors,
    ) -> Self {
        let mut out = Buffers { data: Vec::new(), slot: Vec::with_capacity(root.buffers.len()) };
        let mut by_uri: HashMap<&str, usize> = HashMap::new();
        for (i, b) in root.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            let known = b.uri.as_deref().and_then(|u| by_uri.get(u).copied());
            let (slot, loaded) = match known {
                Some(s) => (s, true),
                None => {
                    let data = match &b.uri {
                        None if i == 0 => {
                            bin.map(Cow::Borrowed).ok_or(format!("{path}: no uri and the file has no GLB BIN chunk"))
                        }
                        None => Err(format!("{path}: no uri (only buffers[0] may use the GLB BIN chunk)")),
                        Some(uri) => load_uri(src, uri, res).map(Cow::Owned).map_err(|e| format!("{path}.uri: {e}")),
                    };
                    let data = errs.take(data);
                    let loaded = data.is_some();
                    out.data.push(data.unwrap_or_default());
                    let s = out.data.len() - 1;
                    if let (Some(uri), true) = (&b.uri, loaded) {
                        by_uri.insert(uri, s);
                    }
                    (s, loaded)
                }
            };
            let have = out.data.get(slot).map_or(0, |d| d.len());
            if loaded && (have as u64) < b.byte_length.0 {
                errs.push(format!("{path}: byteLength is {} but only {have} bytes are there", b.byte_length.0));
            }
            out.slot.push(slot);
        }
        out
    }

    /// Bytes loaded from outside the file itself (external and data-URI buffers).
    pub fn loaded_bytes(&self) -> u64 {
        self.data.iter().filter(|d| matches!(d, Cow::Owned(_))).map(|d| d.len() as u64).sum()
    }

    fn get(&self, b: usize) -> Option<&[u8]> {
        self.data.get(*self.slot.get(b)?).map(|d| &d[..])
    }
}

/// Reads what a URI names: a base64 data URI, or a file relative to `src` inside the project.
/// Whether `uri` names a project file that is not there (Defold ships glTF files whose images
/// it never reads; a `.model` gives the textures).
pub(crate) fn missing_file(src: &str, uri: &str, res: Option<&Resources>) -> bool {
    let external = !uri.starts_with("data:") && !uri.starts_with('/') && !uri.contains(':');
    let path = percent_decode(uri).and_then(|rel| resolve_relative(src, &rel));
    external && res.zip(path).is_some_and(|(r, p)| !r.exists(&p))
}

pub(crate) fn load_uri(src: &str, uri: &str, res: Option<&Resources>) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, data) = rest.split_once(";base64,").ok_or("data URI is not base64")?;
        return base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| format!("bad base64 data URI: {e}"));
    }
    let scheme = uri.split_once(':').is_some_and(|(s, _)| !s.is_empty() && !s.contains('/'));
    if scheme {
        return Err(format!("'{uri}': only data URIs and relative file paths are supported"));
    }
    if uri.starts_with('/') || uri.starts_with('\\') {
        return Err(format!("'{uri}': absolute paths are not allowed"));
    }
    let rel = percent_decode(uri).ok_or_else(|| format!("'{uri}' has a bad percent escape"))?;
    let path = resolve_relative(src, &rel).ok_or_else(|| format!("'{uri}' leaves the project root"))?;
    let res = res.ok_or_else(|| format!("'{uri}' is an external file, which needs a project folder"))?;
    res.read(&path, Some(src)).map_err(|e| e.message)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One accessor read into plain values, `dim` per element.
pub(crate) struct Acc<T> {
    pub count: usize,
    pub dim: usize,
    pub values: Vec<T>,
}

impl<T: Copy> Acc<T> {
    /// The elements as fixed-size arrays (the caller asked for exactly `N` components).
    pub fn arrays<const N: usize>(&self) -> Vec<[T; N]> {
        self.values.chunks_exact(N).filter_map(|c| <[T; N]>::try_from(c).ok()).collect()
    }
}

/// A component value as the importer wants it: floats are normalised, integers read as they are.
pub(crate) trait Elem: Copy + Default {
    fn read(b: &[u8], ct: ComponentType, normalized: bool) -> Self;
}

fn bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    <[u8; N]>::try_from(b.get(..N).unwrap_or(&[0; N][..])).unwrap_or([0; N])
}

impl Elem for f32 {
    fn read(b: &[u8], ct: ComponentType, normalized: bool) -> f32 {
        let (v, max) = match ct {
            ComponentType::F32 => return f32::from_le_bytes(bytes(b)),
            ComponentType::U8 => (f32::from(bytes::<1>(b)[0]), 255.0),
            ComponentType::I8 => (f32::from(i8::from_le_bytes(bytes(b))), 127.0),
            ComponentType::U16 => (f32::from(u16::from_le_bytes(bytes(b))), 65535.0),
            ComponentType::I16 => (f32::from(i16::from_le_bytes(bytes(b))), 32767.0),
            ComponentType::U32 => (u32::from_le_bytes(bytes(b)) as f32, u32::MAX as f32),
        };
        if normalized { (v / max).max(-1.0) } else { v }
    }
}

impl Elem for u32 {
    fn read(b: &[u8], ct: ComponentType, _: bool) -> u32 {
        match ct {
            ComponentType::U8 => u32::from(bytes::<1>(b)[0]),
            ComponentType::U16 => u32::from(u16::from_le_bytes(bytes(b))),
            ComponentType::U32 => u32::from_le_bytes(bytes(b)),
            // Not asked for by any caller; the accessor kinds only allow unsigned integers here.
            _ => 0,
        }
    }
}

/// Which component types a use of an accessor accepts.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    /// FLOAT only.
    Float,
    /// FLOAT, or normalized UNSIGNED_BYTE / UNSIGNED_SHORT (texcoords, colours, weights).
    FloatOrUnorm,
    /// FLOAT, or any normalized 8/16-bit integer (rotations, morph weights, morph deltas).
    FloatOrNorm,
    /// UNSIGNED_BYTE / UNSIGNED_SHORT / UNSIGNED_INT, not normalized (indices).
    Index,
    /// UNSIGNED_BYTE / UNSIGNED_SHORT, not normalized (joints).
    Joint,
}

impl Kind {
    fn allows(self, ct: ComponentType, normalized: bool) -> bool {
        use ComponentType::*;
        match self {
            Kind::Float => ct == F32 && !normalized,
            Kind::FloatOrUnorm => (ct == F32 && !normalized) || (normalized && matches!(ct, U8 | U16)),
            Kind::FloatOrNorm => (ct == F32 && !normalized) || (normalized && matches!(ct, U8 | U16 | I8 | I16)),
            Kind::Index => !normalized && matches!(ct, U8 | U16 | U32),
            Kind::Joint => !normalized && matches!(ct, U8 | U16),
        }
    }
}

pub(crate) fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

fn comp_name(ct: ComponentType, normalized: bool) -> String {
    let n = match ct {
        ComponentType::I8 => "BYTE",
        ComponentType::U8 => "UNSIGNED_BYTE",
        ComponentType::I16 => "SHORT",
        ComponentType::U16 => "UNSIGNED_SHORT",
        ComponentType::U32 => "UNSIGNED_INT",
        ComponentType::F32 => "FLOAT",
    };
    if normalized { format!("normalized {n}") } else { n.to_string() }
}

/// The parsed document and its loaded buffers.
pub(crate) struct Ctx<'a> {
    pub root: &'a json::Root,
    pub buffers: &'a Buffers<'a>,
    pub budget: &'a Budget,
}

impl Ctx<'_> {
    /// See [`Budget::charge`].
    pub fn charge(&self, bytes: u64, what: &str) -> Result<(), String> {
        self.budget.charge(bytes, what)
    }

    /// The bytes of a buffer view, after checking that it lies inside its buffer.
    pub fn view(&self, v: usize) -> Result<(&[u8], Option<usize>), String> {
        let view = self.root.buffer_views.get(v).ok_or_else(|| format!("bufferView {v} does not exist"))?;
        let b = view.buffer.value();
        let buffer = self.root.buffers.get(b).ok_or_else(|| format!("bufferViews[{v}]: buffer {b} does not exist"))?;
        let data = self.buffers.get(b).ok_or_else(|| format!("bufferViews[{v}]: buffer {b} was not loaded"))?;
        let off = view.byte_offset.map_or(0, |o| o.0);
        let end = off.saturating_add(view.byte_length.0);
        if end > buffer.byte_length.0 || end > data.len() as u64 {
            return Err(format!(
                "bufferViews[{v}]: byteOffset {off} + byteLength {} is past the end of buffer {b} ({} bytes)",
                view.byte_length.0,
                buffer.byte_length.0.min(data.len() as u64)
            ));
        }
        let stride = view.byte_stride.map(|s| s.0);
        if let Some(s) = stride
            && (!(4..=252).contains(&s) || s % 4 != 0)
        {
            return Err(format!("bufferViews[{v}].byteStride: {s} is not a multiple of 4 in 4..=252"));
        }
        let bytes = data.get(off as usize..end as usize).ok_or_else(|| format!("bufferViews[{v}] is out of range"))?;
        Ok((bytes, stride))
    }

    /// Reads accessor `idx` for `what` (a glTF path such as `meshes[0].primitives[0].attributes.NORMAL`),
    /// which wants one of `dims` components per element of a type `kind` allows.
    pub fn read<T: Elem>(&self, idx: usize, what: &str, dims: &[usize], kind: Kind) -> Result<Acc<T>, String> {
        let a = self.root.accessors.get(idx).ok_or_else(|| format!("{what}: accessor {idx} does not exist"))?;
        let here = format!("{what} (accessors[{idx}])");
        let (Checked::Valid(ct), Checked::Valid(ty)) = (a.component_type, a.type_) else {
            return Err(format!("{here}: invalid componentType or type"));
        };
        let ct = ct.0;
        let dim = ty.multiplicity();
        // Matrices of 8/16-bit components have column padding; only FLOAT matrices are accepted.
        if !dims.contains(&dim) || (matches!(ty, Type::Mat2 | Type::Mat3) && dims != [dim]) {
            return Err(format!("{here}: type {} is not what this attribute takes", type_name(ty)));
        }
        if !kind.allows(ct, a.normalized) {
            return Err(format!("{here}: component type {} is not allowed here", comp_name(ct, a.normalized)));
        }
        let count = a.count.0;
        if count == 0 {
            return Err(format!("{here}: count is 0"));
        }
        let cs = ct.size();
        let elem = (cs * dim) as u64;
        let decoded = count.saturating_mul(dim as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let mut values = match a.buffer_view {
            Some(v) => {
                let (view, stride) = self.view(v.value()).map_err(|e| format!("{here}: {e}"))?;
                let stride = stride.map_or(elem, |s| s as u64);
                if stride < elem {
                    return Err(format!("{here}: byteStride {stride} is smaller than one element ({elem} bytes)"));
                }
                let off = a.byte_offset.map_or(0, |o| o.0);
                if off % cs as u64 != 0 {
                    return Err(format!("{here}: byteOffset {off} is not a multiple of the component size {cs}"));
                }
                let need = (count - 1)
                    .checked_mul(stride)
                    .and_then(|n| n.checked_add(off)?.checked_add(elem))
                    .unwrap_or(u64::MAX);
                if need > view.len() as u64 {
                    return Err(format!(
                        "{here}: {count} elements need {need} bytes but bufferViews[{}] has {}",
                        v.value(),
                        view.len()
                    ));
                }
                self.charge(decoded, &here)?;
                decode(view, off as usize, stride as usize, count as usize, dim, ct, a.normalized)
            }
            None => {
                if count.saturating_mul(elem) > MAX_ZEROED_BYTES {
                    return Err(format!("{here}: count {count} is too large for an accessor without a bufferView"));
                }
                self.charge(decoded, &here)?;
                vec![T::default(); count as usize * dim]
            }
        };
        if let Some(sp) = &a.sparse {
            self.apply_sparse(sp, &here, &mut values, count, dim, ct, a.normalized)?;
        }
        Ok(Acc { count: count as usize, dim, values })
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_sparse<T: Elem>(
        &self,
        sp: &json::accessor::sparse::Sparse,
        here: &str,
        values: &mut [T],
        count: u64,
        dim: usize,
        ct: ComponentType,
        normalized: bool,
    ) -> Result<(), String> {
        let n = sp.count.0;
        if n == 0 || n > count {
            return Err(format!("{here}.sparse.count: {n} is not in 1..={count}"));
        }
        let Checked::Valid(ict) = sp.indices.component_type else {
            return Err(format!("{here}.sparse.indices: invalid componentType"));
        };
        let ict = ict.0;
        if !Kind::Index.allows(ict, false) {
            return Err(format!("{here}.sparse.indices: component type {} is not allowed", comp_name(ict, false)));
        }
        let (iview, _) =
            self.view(sp.indices.buffer_view.value()).map_err(|e| format!("{here}.sparse.indices: {e}"))?;
        let (vview, _) = self.view(sp.values.buffer_view.value()).map_err(|e| format!("{here}.sparse.values: {e}"))?;
        let (ioff, voff) = (sp.indices.byte_offset.0, sp.values.byte_offset.0);
        let elem = (ct.size() * dim) as u64;
        let ineed = n.checked_mul(ict.size() as u64).and_then(|x| x.checked_add(ioff)).unwrap_or(u64::MAX);
        let vneed = n.checked_mul(elem).and_then(|x| x.checked_add(voff)).unwrap_or(u64::MAX);
        if ineed > iview.len() as u64 {
            return Err(format!("{here}.sparse.indices: {n} indices need {ineed} bytes, the view has {}", iview.len()));
        }
        if vneed > vview.len() as u64 {
            return Err(format!("{here}.sparse.values: {n} values need {vneed} bytes, the view has {}", vview.len()));
        }
        let size = std::mem::size_of::<T>() as u64;
        self.charge(
            n.saturating_mul(4).saturating_add(n.saturating_mul(dim as u64 * size)),
            &format!("{here}.sparse"),
        )?;
        let n = n as usize;
        let idx: Vec<u32> = decode(iview, ioff as usize, ict.size(), n, 1, ict, false);
        let vals: Vec<T> = decode(vview, voff as usize, elem as usize, n, dim, ct, normalized);
        let mut last: Option<u32> = None;
        for (k, &i) in idx.iter().enumerate() {
            if u64::from(i) >= count {
                return Err(format!("{here}.sparse.indices[{k}]: index {i} out of range ({count} elements)"));
            }
            if last.is_some_and(|l| i <= l) {
                return Err(format!(
                    "{here}.sparse.indices[{k}]: indices must increase ({i} after {})",
                    last.unwrap_or(0)
                ));
            }
            last = Some(i);
            let dst = values.get_mut(i as usize * dim..(i as usize + 1) * dim);
            let src = vals.get(k * dim..(k + 1) * dim);
            if let (Some(d), Some(s)) = (dst, src) {
                d.copy_from_slice(s);
            }
        }
        Ok(())
    }
}

/// Decodes `count` elements starting at `off`, `stride` bytes apart; the caller has checked the range.
fn decode<T: Elem>(
    view: &[u8],
    off: usize,
    stride: usize,
    count: usize,
    dim: usize,
    ct: ComponentType,
    normalized: bool,
) -> Vec<T> {
    let cs = ct.size();
    let mut out = Vec::with_capacity(count * dim);
    for e in 0..count {
        let base = off + e * stride;
        let Some(el) = view.get(base..base + cs * dim) else { break };
        out.extend(el.chunks_exact(cs).map(|c| T::read(c, ct, normalized)));
    }
    out.resize(count * dim, T::default());
    out
}
