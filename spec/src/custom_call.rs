//! The registry of known `custom_call_target`s (seed 004, CustomCall; `docs/custom-calls.md`).
//!
//! A custom call means whatever its target means; seed 004 says nothing about any target. What
//! JAX emits for linear algebra on CPU are typed-FFI calls into jaxlib's LAPACK kernels,
//! `lapack_<t><routine>_ffi` (`<t>`: `s` f32, `d` f64, `c` c64, `z` c128). This module names the
//! ones the backends here evaluate ([`Routine`]), reads a call's options from its attributes
//! ([`LapackCall::from_instruction`]) and gives the result shape LAPACK's interface implies
//! ([`LapackCall::result_shape`]). Every other target is unknown: front ends refuse it by name.

use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, Attribute, HloInstruction};
use crate::shape::{ArrayShape, Shape};

/// A LAPACK routine JAX calls through a `lapack_*_ffi` custom call (docs/custom-calls.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routine {
    /// `?POTRF`: Cholesky factor of the `uplo` triangle, `(l, info)`.
    Potrf,
    /// `?TRSM`: `op(a)·x = b` or `x·op(a) = b`, `x`.
    Trsm,
    /// `?GETRF`: LU with partial pivoting, `(lu, ipiv, info)`.
    Getrf,
    /// `?GEQRF`: Householder QR, `(qr, tau)`.
    Geqrf,
    /// `?ORGQR` / `?UNGQR`: the first n columns of `H(1)⋯H(k)`, `q`.
    Orgqr,
    /// `?SYEVD` / `?HEEVD`: symmetric / Hermitian eigendecomposition, `(v, w, info)`.
    Syevd,
    /// `?GESDD`: SVD by divide and conquer, `(a_out, s, u, vt, info)`.
    Gesdd,
    /// `?GESVD`: SVD by QR iteration; the same interface and results as [`Routine::Gesdd`].
    Gesvd,
}

impl Routine {
    /// Every routine, in docs/custom-calls.md order.
    pub const ALL: [Routine; 8] = [
        Routine::Potrf,
        Routine::Trsm,
        Routine::Getrf,
        Routine::Geqrf,
        Routine::Orgqr,
        Routine::Syevd,
        Routine::Gesdd,
        Routine::Gesvd,
    ];

    /// The LAPACK name without its type letter for a real (`complex = false`) or complex
    /// element type: `orgqr`/`ungqr`, `syevd`/`heevd`, the others the same.
    pub fn lapack_name(self, complex: bool) -> &'static str {
        match (self, complex) {
            (Routine::Potrf, _) => "potrf",
            (Routine::Trsm, _) => "trsm",
            (Routine::Getrf, _) => "getrf",
            (Routine::Geqrf, _) => "geqrf",
            (Routine::Orgqr, false) => "orgqr",
            (Routine::Orgqr, true) => "ungqr",
            (Routine::Syevd, false) => "syevd",
            (Routine::Syevd, true) => "heevd",
            (Routine::Gesdd, _) => "gesdd",
            (Routine::Gesvd, _) => "gesvd",
        }
    }

    /// The catalog's name of the routine (the real spelling), e.g. `potrf`: the value of the
    /// derived attribute [`ROUTINE_ATTRIBUTE`] that catalog entries match on.
    pub fn name(self) -> &'static str {
        self.lapack_name(false)
    }

    /// The target of this routine for `ty` (f32, f64, c64, c128), e.g. `lapack_spotrf_ffi`;
    /// `None` for other element types.
    pub fn target(self, ty: ElementType) -> Option<String> {
        let letter = type_letter(ty)?;
        Some(format!(
            "lapack_{letter}{}_ffi",
            self.lapack_name(ty.is_complex())
        ))
    }
}

/// The name of the attribute catalog entries of custom calls match on: derived from
/// `custom_call_target` (`lapack_dgetrf_ffi` has `lapack_routine=getrf`), never written in HLO.
pub const ROUTINE_ATTRIBUTE: &str = "lapack_routine";

fn type_letter(ty: ElementType) -> Option<char> {
    Some(match ty {
        ElementType::F32 => 's',
        ElementType::F64 => 'd',
        ElementType::C64 => 'c',
        ElementType::C128 => 'z',
        _ => return None,
    })
}

/// The routine and element type a target names, e.g. `lapack_zheevd_ffi` → (Syevd, c128);
/// `None` for a target not in the registry (including a real type letter with a complex-only
/// name such as `lapack_sungqr_ffi`).
pub fn parse_target(target: &str) -> Option<(Routine, ElementType)> {
    let body = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let mut chars = body.chars();
    let ty = match chars.next()? {
        's' => ElementType::F32,
        'd' => ElementType::F64,
        'c' => ElementType::C64,
        'z' => ElementType::C128,
        _ => return None,
    };
    let rest = chars.as_str();
    Routine::ALL
        .into_iter()
        .find(|r| r.lapack_name(ty.is_complex()) == rest)
        .map(|r| (r, ty))
}

/// The routine of `instr` when it is a custom call to a known target.
pub fn routine_of(instr: &HloInstruction) -> Option<(Routine, ElementType)> {
    match instr.attribute("custom_call_target")? {
        AttrValue::Str(t) => parse_target(t),
        _ => None,
    }
}

/// `trans_x` of trsm: LAPACK's `N`, `T`, `C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trans {
    /// `N`: `op(a) = a`.
    No,
    /// `T`: `op(a) = aᵀ`.
    Transpose,
    /// `C`: `op(a) = aᴴ` (the same as `T` for real types).
    Adjoint,
}

/// `mode` of syevd and gesdd/gesvd: which vectors are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `V` (syevd): eigenvectors too.
    Vectors,
    /// `N`: values only; the vector results exist (gesdd/gesvd: at full size) but are not
    /// written (implementation-defined).
    NoVectors,
    /// `A` (gesdd/gesvd): all m columns of U and n rows of Vᴴ.
    All,
    /// `S` (gesdd/gesvd): the first min(m, n) columns of U and rows of Vᴴ.
    Reduced,
}

/// One LAPACK custom call, validated: the routine, the element type of its matrix operand and
/// its options (docs/custom-calls.md, "Character attributes"). Options a routine does not take
/// keep their defaults (`lower`, `left_side` true; `No`; `unit_diagonal` false; `Vectors`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LapackCall {
    pub routine: Routine,
    /// f32, f64, c64 or c128.
    pub element_type: ElementType,
    /// The number of leading batch dimensions (`num_batch_dims`, rank − 2 of the matrix).
    pub num_batch_dims: usize,
    /// `uplo`: `L` (true) or `U` (potrf, trsm, syevd).
    pub lower: bool,
    /// `side`: `L` (true, `op(a)·x = b`) or `R` (`x·op(a) = b`) (trsm).
    pub left_side: bool,
    /// `trans_x` (trsm).
    pub trans: Trans,
    /// `diag`: `U` (true) or `N` (trsm).
    pub unit_diagonal: bool,
    /// `mode` (syevd: `V`/`N`; gesdd, gesvd: `A`/`S`/`N`).
    pub mode: Mode,
}

impl LapackCall {
    /// A call with default options (see the type's documentation).
    pub fn new(routine: Routine, element_type: ElementType, num_batch_dims: usize) -> LapackCall {
        LapackCall {
            routine,
            element_type,
            num_batch_dims,
            lower: true,
            left_side: true,
            trans: Trans::No,
            unit_diagonal: false,
            mode: if matches!(routine, Routine::Gesdd | Routine::Gesvd) {
                Mode::Reduced
            } else {
                Mode::Vectors
            },
        }
    }

    /// Reads a custom call: its target (must be in the registry), `num_batch_dims` from
    /// `frontend_attributes` (0 when absent) and the options from the `backend_config`
    /// dictionary (`{uplo = 76 : ui8, ...}`; every option the routine takes is required).
    ///
    /// Errors: a message naming the target and the attribute that is missing or malformed.
    pub fn from_instruction(instr: &HloInstruction) -> Result<LapackCall, String> {
        LapackCall::from_attributes(&instr.attributes)
    }

    /// [`LapackCall::from_instruction`] from the instruction's attributes alone.
    pub fn from_attributes(attributes: &[Attribute]) -> Result<LapackCall, String> {
        let attribute = |name: &str| attributes.iter().find(|a| a.name == name).map(|a| &a.value);
        let target = match attribute("custom_call_target") {
            Some(AttrValue::Str(t)) => t.as_str(),
            _ => return Err("a custom call needs `custom_call_target=\"...\"`".into()),
        };
        let Some((routine, element_type)) = parse_target(target) else {
            return Err(unknown_target_message(target));
        };
        let batch = match attribute("frontend_attributes") {
            Some(AttrValue::Raw(text) | AttrValue::Str(text)) => {
                match dictionary_entry(text, "num_batch_dims") {
                    Some(v) => v.trim_matches('"').parse::<usize>().map_err(|_| {
                        format!("`{target}`: `num_batch_dims` must be a count, found `{v}`")
                    })?,
                    None => 0,
                }
            }
            _ => 0,
        };
        let config = match attribute("backend_config") {
            Some(AttrValue::Raw(text) | AttrValue::Str(text)) => text.clone(),
            _ => String::new(),
        };
        let mut call = LapackCall::new(routine, element_type, batch);
        let char_option = |name: &str, allowed: &[u8]| -> Result<u8, String> {
            let Some(v) = dictionary_entry(&config, name) else {
                return Err(format!(
                    "`{target}` needs `{name}` in `backend_config` (e.g. `{{{name} = {} : ui8}}`)",
                    allowed[0]
                ));
            };
            let code = v
                .split(':')
                .next()
                .unwrap_or("")
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|c| allowed.contains(c));
            code.ok_or_else(|| {
                let names: Vec<String> = allowed
                    .iter()
                    .map(|&c| format!("{c} ({})", c as char))
                    .collect();
                format!(
                    "`{target}`: `{name}` must be one of {} as ui8, found `{v}`",
                    names.join(", ")
                )
            })
        };
        match routine {
            Routine::Potrf => call.lower = char_option("uplo", b"LU")? == b'L',
            Routine::Trsm => {
                call.left_side = char_option("side", b"LR")? == b'L';
                call.lower = char_option("uplo", b"LU")? == b'L';
                call.trans = match char_option("trans_x", b"NTC")? {
                    b'N' => Trans::No,
                    b'T' => Trans::Transpose,
                    _ => Trans::Adjoint,
                };
                call.unit_diagonal = char_option("diag", b"NU")? == b'U';
            }
            Routine::Syevd => {
                call.mode = match char_option("mode", b"VN")? {
                    b'V' => Mode::Vectors,
                    _ => Mode::NoVectors,
                };
                call.lower = char_option("uplo", b"LU")? == b'L';
            }
            Routine::Gesdd | Routine::Gesvd => {
                call.mode = match char_option("mode", b"ASN")? {
                    b'A' => Mode::All,
                    b'S' => Mode::Reduced,
                    _ => Mode::NoVectors,
                };
            }
            Routine::Getrf | Routine::Geqrf | Routine::Orgqr => {}
        }
        Ok(call)
    }

    /// The custom-call target, e.g. `lapack_spotrf_ffi`.
    pub fn target(&self) -> String {
        self.routine
            .target(self.element_type)
            .unwrap_or_else(|| format!("lapack_?{}_ffi", self.routine.name()))
    }

    /// The `backend_config` dictionary in MLIR attribute syntax, as JAX writes it (keys in
    /// alphabetical order): `{uplo = 76 : ui8}`, `{}` for routines without options.
    pub fn backend_config(&self) -> String {
        let c = |name: &str, code: u8| format!("{name} = {code} : ui8");
        let items: Vec<String> = match self.routine {
            Routine::Potrf => vec![c("uplo", if self.lower { b'L' } else { b'U' })],
            Routine::Trsm => vec![
                c("diag", if self.unit_diagonal { b'U' } else { b'N' }),
                c("side", if self.left_side { b'L' } else { b'R' }),
                c(
                    "trans_x",
                    match self.trans {
                        Trans::No => b'N',
                        Trans::Transpose => b'T',
                        Trans::Adjoint => b'C',
                    },
                ),
                c("uplo", if self.lower { b'L' } else { b'U' }),
            ],
            Routine::Syevd => vec![
                c("mode", self.mode_code()),
                c("uplo", if self.lower { b'L' } else { b'U' }),
            ],
            Routine::Gesdd | Routine::Gesvd => vec![c("mode", self.mode_code())],
            Routine::Getrf | Routine::Geqrf | Routine::Orgqr => vec![],
        };
        format!("{{{}}}", items.join(", "))
    }

    fn mode_code(&self) -> u8 {
        match self.mode {
            Mode::Vectors => b'V',
            Mode::NoVectors => b'N',
            Mode::All => b'A',
            Mode::Reduced => b'S',
        }
    }

    /// The number of operands the routine takes: 2 for trsm and orgqr, 1 otherwise.
    pub fn arity(&self) -> usize {
        match self.routine {
            Routine::Trsm | Routine::Orgqr => 2,
            _ => 1,
        }
    }

    /// The result shape LAPACK's interface gives for these operands (default layouts), from
    /// docs/custom-calls.md: with batch dimensions `B` (`num_batch_dims` leading dimensions of
    /// every operand) and the matrix `a: [B, m, n]`,
    /// - potrf `[B, n, n]` → `([B, n, n], s32[B])`;
    /// - trsm `a: [B, m, m]`, `b: [B, m, k]` (left) or `[B, k, m]` (right) → `b`'s shape;
    /// - getrf → `([B, m, n], s32[B, min(m, n)], s32[B])`;
    /// - geqrf → `([B, m, n], [B, min(m, n)])`;
    /// - orgqr `a: [B, m, n]`, `tau: [B, k]` with `k ≤ n ≤ m` → `[B, m, n]`;
    /// - syevd `[B, n, n]` → `([B, n, n], real[B, n], s32[B])`;
    /// - gesdd/gesvd → `([B, m, n], real[B, k], u, vt, s32[B])`, `k = min(m, n)`, `u: [B, m, m]`
    ///   and `vt: [B, n, n]` for modes `A` and `N`, `[B, m, k]` and `[B, k, n]` for `S`.
    ///
    /// Errors: a message naming the operand whose rank, size or element type does not fit.
    pub fn result_shape(&self, operands: &[&ArrayShape]) -> Result<Shape, String> {
        let target = self.target();
        if operands.len() != self.arity() {
            return Err(format!(
                "`{target}` takes {} operand(s), got {}",
                self.arity(),
                operands.len()
            ));
        }
        let nb = self.num_batch_dims;
        for (k, o) in operands.iter().enumerate() {
            if o.element_type != self.element_type {
                return Err(format!(
                    "`{target}`: operand {k} is {}, the target takes {}",
                    o.element_type.hlo_name(),
                    self.element_type.hlo_name()
                ));
            }
            let rank = if self.routine == Routine::Orgqr && k == 1 {
                nb + 1
            } else {
                nb + 2
            };
            if o.dimensions.len() != rank {
                return Err(format!(
                    "`{target}`: operand {k} {o} must have rank {rank} (num_batch_dims = {nb})"
                ));
            }
            if o.dimensions[..nb] != operands[0].dimensions[..nb] {
                return Err(format!(
                    "`{target}`: operand {k} {o} and operand 0 {} differ in their batch dimensions",
                    operands[0]
                ));
            }
        }
        let a = &operands[0].dimensions;
        let batch = &a[..nb];
        let (m, n) = (a[nb], a[nb + 1]);
        let ty = self.element_type;
        let real = ty.complex_component().unwrap_or(ty);
        let arr = |t: ElementType, tail: &[i64]| {
            let mut d = batch.to_vec();
            d.extend_from_slice(tail);
            Shape::array(t, d)
        };
        let info = arr(ElementType::S32, &[]);
        let square = |what: &str| {
            if m == n {
                Ok(())
            } else {
                Err(format!("`{target}`: {what} {} must be square", operands[0]))
            }
        };
        let k = m.min(n);
        Ok(match self.routine {
            Routine::Potrf => {
                square("a")?;
                Shape::Tuple(vec![arr(ty, &[m, n]), info])
            }
            Routine::Trsm => {
                square("a")?;
                let b = &operands[1].dimensions;
                let solved = if self.left_side { b[nb] } else { b[nb + 1] };
                if solved != m {
                    return Err(format!(
                        "`{target}`: b {} must have {m} {} to solve with a {}",
                        operands[1],
                        if self.left_side { "rows" } else { "columns" },
                        operands[0]
                    ));
                }
                arr(ty, &b[nb..])
            }
            Routine::Getrf => {
                Shape::Tuple(vec![arr(ty, &[m, n]), arr(ElementType::S32, &[k]), info])
            }
            Routine::Geqrf => Shape::Tuple(vec![arr(ty, &[m, n]), arr(ty, &[k])]),
            Routine::Orgqr => {
                let taus = operands[1].dimensions[nb];
                if !(taus <= n && n <= m) {
                    return Err(format!(
                        "`{target}`: a {} and tau {} need k ≤ n ≤ m (k reflectors, a m×n)",
                        operands[0], operands[1]
                    ));
                }
                arr(ty, &[m, n])
            }
            Routine::Syevd => {
                square("a")?;
                Shape::Tuple(vec![arr(ty, &[n, n]), arr(real, &[n]), info])
            }
            Routine::Gesdd | Routine::Gesvd => {
                let (u, vt) = match self.mode {
                    Mode::Reduced => ([m, k], [k, n]),
                    _ => ([m, m], [n, n]),
                };
                Shape::Tuple(vec![
                    arr(ty, &[m, n]),
                    arr(real, &[k]),
                    arr(ty, &u),
                    arr(ty, &vt),
                    info,
                ])
            }
        })
    }
}

/// LAPACK families JAX emits that the registry knows of but no backend here evaluates
/// (docs/custom-calls.md, "Other LAPACK targets" and geqp3, ormqr, geev).
const KNOWN_NOT_EVALUATED: &[&str] = &[
    "geqp3", "ormqr", "unmqr", "geev", "gees", "gehrd", "sytrd", "hetrd", "gtsv",
];

/// The error for a target outside the registry, naming it. A LAPACK target JAX emits that is
/// documented but not evaluated here says so.
pub fn unknown_target_message(target: &str) -> String {
    let documented = target
        .strip_prefix("lapack_")
        .and_then(|b| b.strip_suffix("_ffi"))
        .and_then(|b| b.get(1..))
        .is_some_and(|r| KNOWN_NOT_EVALUATED.contains(&r));
    if documented {
        format!(
            "custom call target `{target}` is documented in docs/custom-calls.md but not evaluated by the backends here (evaluated: potrf, trsm, getrf, geqrf, orgqr/ungqr, syevd/heevd, gesdd, gesvd)"
        )
    } else {
        format!(
            "custom call target `{target}` is not in the registry of known targets (docs/custom-calls.md)"
        )
    }
}

/// The value text of `key` in an MLIR-style dictionary `{a = 1 : ui8, b = "x"}` or an HLO
/// `frontend_attributes={a="1",b="2"}`: the text after `=` up to the next top-level comma,
/// trimmed. `None` when the key is absent.
pub(crate) fn dictionary_entry<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
    let mut depth = 0i32;
    let mut in_string = false;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, ch) in inner.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            '<' | '(' | '[' | '{' if !in_string => depth += 1,
            '>' | ')' | ']' | '}' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items.into_iter().find_map(|item| {
        let (k, v) = item.split_once('=')?;
        (k.trim().trim_matches('"') == key).then(|| v.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_module;

    fn instruction(line: &str) -> HloInstruction {
        let text = format!(
            "HloModule m\nENTRY main {{\n  a = f32[2,5,5]{{2,1,0}} parameter(0)\n  b = f32[2,5,3]{{2,1,0}} parameter(1)\n  ROOT {line}\n}}\n"
        );
        let m = parse_module(&text).expect("parses");
        m.entry_computation().root_instruction().clone()
    }

    #[test]
    fn targets_name_routine_and_type() {
        assert_eq!(
            parse_target("lapack_spotrf_ffi"),
            Some((Routine::Potrf, ElementType::F32))
        );
        assert_eq!(
            parse_target("lapack_zheevd_ffi"),
            Some((Routine::Syevd, ElementType::C128))
        );
        assert_eq!(
            parse_target("lapack_cungqr_ffi"),
            Some((Routine::Orgqr, ElementType::C64))
        );
        // Real names with a complex letter and the reverse are not LAPACK routines.
        assert_eq!(parse_target("lapack_corgqr_ffi"), None);
        assert_eq!(parse_target("lapack_ssyevd"), None);
        assert_eq!(parse_target("lapack_xpotrf_ffi"), None);
        for r in Routine::ALL {
            for t in [
                ElementType::F32,
                ElementType::F64,
                ElementType::C64,
                ElementType::C128,
            ] {
                let name = r.target(t).expect("a LAPACK type");
                assert_eq!(parse_target(&name), Some((r, t)), "{name}");
            }
        }
    }

    #[test]
    fn jax_batched_trsm_reads_its_options_and_shape() {
        let i = instruction(
            "x = f32[2,5,3]{1,2,0} custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", operand_layout_constraints={f32[2,5,5]{1,2,0}, f32[2,5,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims=\"1\",xla.sdy.sharding_rule=\"#sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=5}, custom>\"}, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}",
        );
        let c = LapackCall::from_instruction(&i).expect("valid");
        assert_eq!(c.routine, Routine::Trsm);
        assert_eq!(c.num_batch_dims, 1);
        assert!(c.lower && c.left_side && !c.unit_diagonal);
        assert_eq!(c.trans, Trans::Transpose);
        assert_eq!(
            c.backend_config(),
            "{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}"
        );
        let a = ArrayShape::new(ElementType::F32, vec![2, 5, 5]);
        let b = ArrayShape::new(ElementType::F32, vec![2, 5, 3]);
        assert_eq!(
            c.result_shape(&[&a, &b]).expect("fits").to_string(),
            "f32[2,5,3]{2,1,0}"
        );
        let wrong = ArrayShape::new(ElementType::F32, vec![2, 4, 3]);
        let e = c.result_shape(&[&a, &wrong]).expect_err("4 rows");
        assert!(e.contains("must have 5 rows"), "{e}");
    }

    #[test]
    fn missing_and_malformed_options_are_named() {
        let i = instruction(
            "x = (f32[2,5,5]{1,2,0}, s32[2]{0}) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", backend_config={}",
        );
        let e = LapackCall::from_instruction(&i).expect_err("no uplo");
        assert!(e.contains("needs `uplo`"), "{e}");
        let i = instruction(
            "x = (f32[2,5,5]{1,2,0}, s32[2]{0}) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", backend_config={uplo = 88 : ui8}",
        );
        let e = LapackCall::from_instruction(&i).expect_err("X");
        assert!(e.contains("76 (L), 85 (U)"), "{e}");
        let i = instruction("x = f32[2] custom-call(a), custom_call_target=\"my_kernel\"");
        let e = LapackCall::from_instruction(&i).expect_err("unknown");
        assert!(e.contains("`my_kernel` is not in the registry"), "{e}");
        let e = unknown_target_message("lapack_sgeev_ffi");
        assert!(
            e.contains("documented") && e.contains("not evaluated"),
            "{e}"
        );
    }

    #[test]
    fn result_shapes_follow_lapack() {
        let a = ArrayShape::new(ElementType::C64, vec![6, 4]);
        let svd = |mode| {
            let mut c = LapackCall::new(Routine::Gesdd, ElementType::C64, 0);
            c.mode = mode;
            c.result_shape(&[&a]).expect("fits").to_string()
        };
        assert_eq!(
            svd(Mode::Reduced),
            "(c64[6,4]{1,0}, f32[4]{0}, c64[6,4]{1,0}, c64[4,4]{1,0}, s32[])"
        );
        assert_eq!(
            svd(Mode::All),
            "(c64[6,4]{1,0}, f32[4]{0}, c64[6,6]{1,0}, c64[4,4]{1,0}, s32[])"
        );
        let getrf = LapackCall::new(Routine::Getrf, ElementType::C64, 0);
        assert_eq!(
            getrf.result_shape(&[&a]).expect("fits").to_string(),
            "(c64[6,4]{1,0}, s32[4]{0}, s32[])"
        );
        let tau = ArrayShape::new(ElementType::C64, vec![4]);
        let orgqr = LapackCall::new(Routine::Orgqr, ElementType::C64, 0);
        assert_eq!(
            orgqr.result_shape(&[&a, &tau]).expect("fits").to_string(),
            "c64[6,4]{1,0}"
        );
        let wide = ArrayShape::new(ElementType::C64, vec![4, 6]);
        assert!(orgqr.result_shape(&[&wide, &tau]).is_err());
        let potrf = LapackCall::new(Routine::Potrf, ElementType::C64, 0);
        assert!(potrf.result_shape(&[&a]).unwrap_err().contains("square"));
    }
}
