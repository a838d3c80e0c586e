//! The pretty (custom assembly) forms of the operations JAX prints, read into a generic [`Op`]
//! whose attributes carry the generic form's names (`stablehlo.compare LT, %a, %b, FLOAT` →
//! `comparison_direction`, `compare_type`). Source: the `assemblyFormat`s and custom parsers of
//! StableHLO's `StablehloOps.td` / `AssemblyFormat.cpp` and CHLO's `ChloOps.td`.
//!
//! An operation whose pretty form is not known here is an error naming it (operations written in
//! the generic form `"name"(...)` are read whatever they are, and judged by the lowering).

use super::attrs::{parse_attr, parse_type, pretty_conv_dims, Attr, Type};
use super::lexer::{Cursor, PResult, Tok};
use super::syntax::{
    new_op, optional_attr_dict, parse_region, parse_use, use_list_until_paren, Arg, Block, Op,
};

/// Unary element-wise operations (`%x : t` or `%x : (t) -> r`).
const UNARY: &[&str] = &[
    "abs",
    "cbrt",
    "ceil",
    "convert",
    "count_leading_zeros",
    "cosine",
    "exponential",
    "exponential_minus_one",
    "floor",
    "imag",
    "is_finite",
    "log",
    "log_plus_one",
    "logistic",
    "not",
    "negate",
    "popcnt",
    "real",
    "round_nearest_afz",
    "round_nearest_even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
    "bitcast_convert",
    "reshape",
];

/// Binary element-wise operations (`%a, %b : t` or a function type).
const BINARY: &[&str] = &[
    "add",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "remainder",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "subtract",
    "and",
    "or",
    "xor",
];

/// Parses the pretty form of operation `name` (read at `pos`).
///
/// Errors: an operation whose pretty form is unknown (naming it), or a malformed form.
pub(crate) fn parse(c: &mut Cursor, name: &str, pos: usize) -> PResult<Op> {
    let full = match name {
        "call" | "return" => format!("func.{name}"),
        _ => name.to_string(),
    };
    let mut op = new_op(&full, pos);
    if let Some(short) = full.strip_prefix("stablehlo.") {
        stablehlo(c, &mut op, short)?;
    } else if let Some(short) = full.strip_prefix("chlo.") {
        chlo(c, &mut op, short)?;
    } else {
        match full.as_str() {
            "func.call" => call(c, &mut op)?,
            "func.return" => terminator(c, &mut op)?,
            _ => return Err(c.error_at(pos, super::lower::no_translation(&full))),
        }
    }
    Ok(op)
}

/// The `stablehlo.*` pretty forms.
fn stablehlo(c: &mut Cursor, op: &mut Op, short: &str) -> PResult<()> {
    if let Some(read) = super::transfer::pretty(c, op, short) {
        return read;
    }
    match short {
        s if UNARY.contains(&s) => operands_then_types(c, op, 1),
        s if BINARY.contains(&s) => operands_then_types(c, op, 2),
        "clamp" => operands_then_types(c, op, 3),
        "optimization_barrier" | "return" => terminator(c, op),
        "dynamic_update_slice" => {
            op.operands = operand_list(c)?;
            functional(c, op)
        }
        "select" => {
            op.operands = uses(c, 3)?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the types of `select`")?;
            let first = parse_type(c)?;
            match first {
                Type::Function(i, r) => {
                    op.operand_types = i;
                    op.result_types = r;
                }
                pred => {
                    c.expect_punct(',', "and the result type after the predicate type")?;
                    let t = parse_type(c)?;
                    op.operand_types = vec![pred, t.clone(), t.clone()];
                    op.result_types = vec![t];
                }
            }
            Ok(())
        }
        "complex" => {
            op.operands = uses(c, 2)?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the type of `complex`")?;
            let at = c.peek()?.start;
            match parse_type(c)? {
                Type::Function(i, r) => {
                    op.operand_types = i;
                    op.result_types = r;
                }
                Type::Tensor(t) => {
                    let real = t.element_type.complex_component().ok_or_else(|| {
                        c.error_at(at, "expected a tensor with a complex element type")
                    })?;
                    let r = Type::Tensor(t.clone().with_element_type(real));
                    op.operand_types = vec![r.clone(), r];
                    op.result_types = vec![Type::Tensor(t)];
                }
                other => {
                    return Err(c.error_at(at, format!("unexpected type `{}`", other.describe())))
                }
            }
            Ok(())
        }
        "compare" => {
            let d = c.next()?;
            let Tok::Ident(dir) = &d.tok else {
                return Err(c.unexpected(&d, "a comparison direction (`EQ`, `LT`, ...)"));
            };
            op.attrs.push((
                "comparison_direction".into(),
                Attr::Enum("comparison_direction".into(), dir.clone()),
                d.start,
            ));
            c.expect_punct(',', "after the comparison direction")?;
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "between the operands of `compare`")?;
            op.operands.push(parse_use(c)?);
            if c.eat_punct(',')? {
                let t = c.next()?;
                let Tok::Ident(ty) = &t.tok else {
                    return Err(c.unexpected(&t, "a comparison type (`FLOAT`, `SIGNED`, ...)"));
                };
                op.attrs.push((
                    "compare_type".into(),
                    Attr::Enum("comparison_type".into(), ty.clone()),
                    t.start,
                ));
            }
            functional(c, op)
        }
        "constant" => {
            optional_attr_dict(c, op)?;
            let at = c.peek()?.start;
            let value = parse_attr(c)?;
            let Attr::Dense(_, ty) = &value else {
                return Err(c.error_at(at, "expected a `dense<...> : tensor<...>` constant value"));
            };
            op.result_types = vec![ty.clone()];
            op.attrs.push(("value".into(), value, at));
            Ok(())
        }
        "replica_id" | "partition_id" => {
            // `stablehlo.partition_id : tensor<ui32>`
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the result type")?;
            op.result_types = vec![parse_type(c)?];
            Ok(())
        }
        "iota" => {
            keyword_int(c, op, "dim", "iota_dimension")?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the result type of `iota`")?;
            op.result_types = vec![parse_type(c)?];
            Ok(())
        }
        "broadcast_in_dim" => one_then(c, op, &[("dims", "broadcast_dimensions")]),
        "custom_call" => {
            // `stablehlo.custom_call @target(%a, %b) {attributes} : (types) -> results`
            let s = c.next()?;
            let Tok::Symbol(target) = &s.tok else {
                return Err(c.unexpected(&s, "the custom call target `@name`"));
            };
            op.attrs.push((
                "call_target_name".into(),
                Attr::Symbol(target.clone()),
                s.start,
            ));
            c.expect_punct('(', "to open the custom call's operands")?;
            op.operands = use_list_until_paren(c)?;
            functional(c, op)
        }
        "fft" => {
            // `stablehlo.fft %x, type = RFFT, length = [4, 8] : (t) -> r`
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand")?;
            let at = c.expect_keyword("type", "")?.start;
            c.expect_punct('=', "after `type`")?;
            let t = c.next()?;
            let Tok::Ident(kind) = &t.tok else {
                return Err(c.unexpected(&t, "an FFT type (`FFT`, `IFFT`, `RFFT`, `IRFFT`)"));
            };
            op.attrs.push((
                "fft_type".into(),
                Attr::Enum("fft_type".into(), kind.clone()),
                at,
            ));
            c.expect_punct(',', "after the FFT type")?;
            keyword_list(c, op, "length", "fft_length")?;
            functional(c, op)
        }
        "rng" => {
            // `stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (types) -> result`
            op.operands = uses(c, 3)?;
            c.expect_punct(',', "after the operands of `rng`")?;
            let at = c.expect_keyword("distribution", "")?.start;
            c.expect_punct('=', "after `distribution`")?;
            let t = c.next()?;
            let Tok::Ident(kind) = &t.tok else {
                return Err(c.unexpected(&t, "a distribution (`UNIFORM`, `NORMAL`)"));
            };
            op.attrs.push((
                "rng_distribution".into(),
                Attr::Enum("rng_distribution".into(), kind.clone()),
                at,
            ));
            functional(c, op)
        }
        "rng_bit_generator" => {
            // `stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (t) -> (t, r)`
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the state")?;
            let at = c.expect_keyword("algorithm", "")?.start;
            c.expect_punct('=', "after `algorithm`")?;
            let t = c.next()?;
            let Tok::Ident(kind) = &t.tok else {
                return Err(c.unexpected(&t, "an algorithm (`DEFAULT`, `THREE_FRY`, `PHILOX`)"));
            };
            op.attrs.push((
                "rng_algorithm".into(),
                Attr::Enum("rng_algorithm".into(), kind.clone()),
                at,
            ));
            functional(c, op)
        }
        "broadcast" => one_then(c, op, &[("sizes", "broadcast_sizes")]),
        "transpose" => one_then(c, op, &[("dims", "permutation")]),
        "reverse" => {
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand")?;
            keyword_list(c, op, "dims", "dimensions")?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the type")?;
            same_or_functional(c, op, 1)
        }
        "get_dimension_size" => {
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand")?;
            keyword_int(c, op, "dim", "dimension")?;
            functional(c, op)
        }
        "set_dimension_size" => {
            op.operands = uses(c, 2)?;
            c.expect_punct(',', "after the operands")?;
            keyword_int(c, op, "dim", "dimension")?;
            functional(c, op)
        }
        "concatenate" => {
            op.operands = variadic_with_attribute(c)?;
            keyword_int(c, op, "dim", "dimension")?;
            functional(c, op)
        }
        "dynamic_slice" => {
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand")?;
            op.operands.extend(variadic_with_attribute(c)?);
            keyword_list(c, op, "sizes", "slice_sizes")?;
            functional(c, op)
        }
        "pad" => {
            op.operands = uses(c, 2)?;
            for (k, (word, name)) in [
                ("low", "edge_padding_low"),
                ("high", "edge_padding_high"),
                ("interior", "interior_padding"),
            ]
            .into_iter()
            .enumerate()
            {
                c.expect_punct(
                    ',',
                    if k == 0 {
                        "after the operands"
                    } else {
                        "between paddings"
                    },
                )?;
                keyword_list(c, op, word, name)?;
            }
            functional(c, op)
        }
        "slice" => {
            op.operands = vec![parse_use(c)?];
            let open = c.expect_punct('[', "to open the slice ranges")?;
            let (mut start, mut limit, mut stride) = (Vec::new(), Vec::new(), Vec::new());
            if !c.eat_punct(']')? {
                loop {
                    start.push(c.i64("a start index")? as i128);
                    c.expect_punct(':', "between start and limit")?;
                    limit.push(c.i64("a limit index")? as i128);
                    stride.push(if c.eat_punct(':')? {
                        c.i64("a stride")? as i128
                    } else {
                        1
                    });
                    if c.eat_punct(']')? {
                        break;
                    }
                    c.expect_punct(',', "or `]` between slice ranges")?;
                }
            }
            for (name, v) in [
                ("start_indices", start),
                ("limit_indices", limit),
                ("strides", stride),
            ] {
                op.attrs
                    .push((name.into(), Attr::DenseArray("i64".into(), v), open.start));
            }
            functional(c, op)
        }
        "reduce_precision" => {
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand")?;
            c.expect_keyword("format", "in `reduce_precision`")?;
            c.expect_punct('=', "after `format`")?;
            let t = c.next()?;
            let parsed = match &t.tok {
                Tok::Ident(s) => s
                    .strip_prefix('e')
                    .and_then(|r| r.split_once('m'))
                    .and_then(|(e, m)| Some((e.parse::<i128>().ok()?, m.parse::<i128>().ok()?))),
                _ => None,
            };
            let (e, m) =
                parsed.ok_or_else(|| c.unexpected(&t, "a format `e#m#` such as `e5m10`"))?;
            op.attrs
                .push(("exponent_bits".into(), Attr::Int(e), t.start));
            op.attrs
                .push(("mantissa_bits".into(), Attr::Int(m), t.start));
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the type")?;
            same_or_functional(c, op, 1)
        }
        "dot_general" => {
            op.operands = uses(c, 2)?;
            let at = c.peek()?.start;
            let mut fields = Vec::new();
            c.expect_punct(',', "after the operands of `dot_general`")?;
            if c.eat_keyword("batching_dims")? {
                let (l, r) = pair_of_lists(c)?;
                fields.push(("lhs_batching_dimensions".to_string(), l));
                fields.push(("rhs_batching_dimensions".to_string(), r));
                c.expect_punct(',', "after `batching_dims`")?;
            }
            c.expect_keyword("contracting_dims", "in `dot_general`")?;
            let (l, r) = pair_of_lists(c)?;
            fields.push(("lhs_contracting_dimensions".to_string(), l));
            fields.push(("rhs_contracting_dimensions".to_string(), r));
            op.attrs.push((
                "dot_dimension_numbers".into(),
                Attr::Struct("stablehlo.dot".into(), fields),
                at,
            ));
            dot_options(c, op)?;
            functional(c, op)
        }
        "dot" => {
            op.operands = uses(c, 2)?;
            dot_options(c, op)?;
            functional(c, op)
        }
        "convolution" => {
            c.expect_punct('(', "to open the operands of `convolution`")?;
            op.operands = use_list_until_paren(c)?;
            let at = c.expect_keyword("dim_numbers", "in `convolution`")?.start;
            c.expect_punct('=', "after `dim_numbers`")?;
            let d = pretty_conv_dims(c)?;
            op.attrs
                .push(("dimension_numbers".into(), Attr::Conv(d), at));
            c.expect_punct(',', "after the dimension numbers")?;
            c.expect_keyword("window", "in `convolution`")?;
            c.expect_punct('=', "after `window`")?;
            c.expect_punct('{', "to open the window")?;
            if !c.eat_punct('}')? {
                loop {
                    let k = c.next()?;
                    let name = match &k.tok {
                        Tok::Ident(s) => match s.as_str() {
                            "stride" => "window_strides",
                            "pad" => "padding",
                            "lhs_dilate" => "lhs_dilation",
                            "rhs_dilate" => "rhs_dilation",
                            "reverse" => "window_reversal",
                            _ => {
                                return Err(c.unexpected(
                                    &k,
                                    "`stride`, `pad`, `lhs_dilate`, `rhs_dilate` or `reverse`",
                                ))
                            }
                        },
                        _ => return Err(c.unexpected(&k, "a window field")),
                    };
                    c.expect_punct('=', "after the window field")?;
                    let v = parse_attr(c)?;
                    op.attrs.push((name.into(), v, k.start));
                    if c.eat_punct('}')? {
                        break;
                    }
                    c.expect_punct(',', "or `}` in the window")?;
                }
            }
            functional(c, op)
        }
        "reduce" => reduce(c, op),
        "while" => while_op(c, op),
        "tuple" => {
            op.operands = operand_list(c)?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the tuple type")?;
            let t = parse_type(c)?;
            if let Type::Tuple(items) = &t {
                op.operand_types = items.clone();
            }
            op.result_types = vec![t];
            Ok(())
        }
        "get_tuple_element" => {
            op.operands = vec![parse_use(c)?];
            c.expect_punct('[', "before the element index")?;
            let (v, at) = c.int("an element index")?;
            op.attrs.push(("index".into(), Attr::Int(v), at));
            c.expect_punct(']', "after the element index")?;
            functional(c, op)
        }
        _ => Err(c.error_at(op.pos, super::lower::no_translation(&op.name))),
    }
}

/// The `chlo.*` pretty forms: `top_k`, the unary functions (`%x : t -> r`) and the binary ones
/// (`%a, %b : t, u -> r`).
fn chlo(c: &mut Cursor, op: &mut Op, short: &str) -> PResult<()> {
    match short {
        "top_k" => {
            c.expect_punct('(', "to open the operand of `top_k`")?;
            op.operands = vec![parse_use(c)?];
            c.expect_punct(',', "after the operand of `top_k`")?;
            keyword_int(c, op, "k", "k")?;
            c.expect_punct(')', "to close `top_k(...)`")?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the types of `top_k`")?;
            op.operand_types = vec![parse_type(c)?];
            c.expect_arrow("between the operand and result types")?;
            c.expect_punct('(', "to open the result types")?;
            op.result_types = super::attrs::type_list_until_paren(c)?;
            Ok(())
        }
        "erf" | "tan" | "square" | "acos" | "acosh" | "asin" | "asinh" | "atan" | "atanh"
        | "bessel_i1e" | "cosh" | "digamma" | "erf_inv" | "erfc" | "lgamma" | "sinh" => {
            op.operands = vec![parse_use(c)?];
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the types")?;
            op.operand_types = vec![parse_type(c)?];
            c.expect_arrow("between the operand and result types")?;
            op.result_types = vec![parse_type(c)?];
            Ok(())
        }
        "next_after" | "polygamma" | "zeta" => {
            // `%a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>`
            op.operands = uses(c, 2)?;
            optional_attr_dict(c, op)?;
            c.expect_punct(':', "and the operand types")?;
            op.operand_types = vec![parse_type(c)?];
            c.expect_punct(',', "between the two operand types")?;
            op.operand_types.push(parse_type(c)?);
            c.expect_arrow("between the operand and result types")?;
            op.result_types = vec![parse_type(c)?];
            Ok(())
        }
        _ => Err(c.error_at(op.pos, super::lower::no_translation(&op.name))),
    }
}

/// `n` operands, an optional attribute dictionary, `:` and a type (shared by all) or a
/// function type.
fn operands_then_types(c: &mut Cursor, op: &mut Op, n: usize) -> PResult<()> {
    op.operands = uses(c, n)?;
    optional_attr_dict(c, op)?;
    c.expect_punct(':', "and the type")?;
    same_or_functional(c, op, n)
}

/// A type shared by `n` operands and the result, or a function type.
fn same_or_functional(c: &mut Cursor, op: &mut Op, n: usize) -> PResult<()> {
    match parse_type(c)? {
        Type::Function(i, r) => {
            op.operand_types = i;
            op.result_types = r;
        }
        t => {
            op.operand_types = vec![t.clone(); n];
            op.result_types = vec![t];
        }
    }
    Ok(())
}

/// An optional attribute dictionary, `:` and a function type.
fn functional(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    optional_attr_dict(c, op)?;
    c.expect_punct(':', "and the function type")?;
    let at = c.peek()?.start;
    match parse_type(c)? {
        Type::Function(i, r) => {
            op.operand_types = i;
            op.result_types = r;
            Ok(())
        }
        other => Err(c.error_at(
            at,
            format!(
                "expected a function type `(...) -> ...`, found `{}`",
                other.describe()
            ),
        )),
    }
}

/// Exactly `n` comma-separated uses.
fn uses(c: &mut Cursor, n: usize) -> PResult<Vec<super::syntax::Use>> {
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        if k > 0 {
            c.expect_punct(',', "between operands")?;
        }
        out.push(parse_use(c)?);
    }
    Ok(out)
}

/// Zero or more comma-separated uses (stops at a token that is not a value).
fn operand_list(c: &mut Cursor) -> PResult<Vec<super::syntax::Use>> {
    let mut out = Vec::new();
    if !matches!(c.peek()?.tok, Tok::Value(..)) {
        return Ok(out);
    }
    loop {
        out.push(parse_use(c)?);
        if !(c.peek()?.tok == Tok::Punct(',') && matches!(c.peek2()?.tok, Tok::Value(..))) {
            return Ok(out);
        }
        c.next()?;
    }
}

/// `%a, %b, ` — operands each followed by a comma (StableHLO's `VariadicOperandWithAttribute`).
fn variadic_with_attribute(c: &mut Cursor) -> PResult<Vec<super::syntax::Use>> {
    let mut out = Vec::new();
    while let Tok::Value(..) = c.peek()?.tok {
        out.push(parse_use(c)?);
        c.expect_punct(',', "after an operand")?;
    }
    Ok(out)
}

/// `return`-like: operands, an optional attribute dictionary, and `: types` when there are
/// operands (terminators, `optimization_barrier`: results have the operands' types).
fn terminator(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    op.operands = operand_list(c)?;
    optional_attr_dict(c, op)?;
    if !op.operands.is_empty() {
        c.expect_punct(':', "and the operand types")?;
        loop {
            op.operand_types.push(parse_type(c)?);
            if !c.eat_punct(',')? {
                break;
            }
        }
        op.result_types = op.operand_types.clone();
    }
    Ok(())
}

/// One operand, then `, word = [...]` for each (word, attribute name), then a function type.
fn one_then(c: &mut Cursor, op: &mut Op, lists: &[(&str, &str)]) -> PResult<()> {
    op.operands = vec![parse_use(c)?];
    for (word, name) in lists {
        c.expect_punct(',', "after the operand")?;
        keyword_list(c, op, word, name)?;
    }
    functional(c, op)
}

/// `word = [1, 2]` stored as attribute `name`.
fn keyword_list(c: &mut Cursor, op: &mut Op, word: &str, name: &str) -> PResult<()> {
    let at = c.expect_keyword(word, "")?.start;
    c.expect_punct('=', &format!("after `{word}`"))?;
    let v = parse_attr(c)?;
    op.attrs.push((name.into(), v, at));
    Ok(())
}

/// `word = N` stored as attribute `name`.
fn keyword_int(c: &mut Cursor, op: &mut Op, word: &str, name: &str) -> PResult<()> {
    let at = c.expect_keyword(word, "")?.start;
    c.expect_punct('=', &format!("after `{word}`"))?;
    let (v, _) = c.int(&format!("an integer after `{word} =`"))?;
    op.attrs.push((name.into(), Attr::Int(v), at));
    Ok(())
}

/// `[0] x [1]`.
fn pair_of_lists(c: &mut Cursor) -> PResult<(Attr, Attr)> {
    c.expect_punct('=', "before the dimension lists")?;
    let l = parse_attr(c)?;
    c.expect_keyword("x", "between the lhs and rhs dimensions")?;
    let r = parse_attr(c)?;
    Ok((l, r))
}

/// `, precision = [DEFAULT, HIGHEST]` and `, algorithm = <...>` after a dot's operands.
fn dot_options(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    while c.peek()?.tok == Tok::Punct(',') {
        c.next()?;
        let k = c.next()?;
        match &k.tok {
            Tok::Ident(s) if s == "precision" => {
                c.expect_punct('=', "after `precision`")?;
                c.expect_punct('[', "to open the precision list")?;
                let mut items = Vec::new();
                while !c.eat_punct(']')? {
                    let t = c.next()?;
                    match &t.tok {
                        Tok::Ident(p) => items.push(Attr::Enum("precision".into(), p.clone())),
                        Tok::Punct(',') => {}
                        _ => {
                            return Err(
                                c.unexpected(&t, "a precision (`DEFAULT`, `HIGH`, `HIGHEST`)")
                            )
                        }
                    }
                }
                op.attrs
                    .push(("precision_config".into(), Attr::List(items), k.start));
            }
            Tok::Ident(s) if s == "algorithm" => {
                c.expect_punct('=', "after `algorithm`")?;
                let from = c.pos;
                c.skip_balanced('<', '>')?;
                op.attrs.push((
                    "algorithm".into(),
                    Attr::Opaque(c.src[from..c.pos].trim().to_string()),
                    k.start,
                ));
            }
            _ => return Err(c.unexpected(&k, "`precision` or `algorithm`")),
        }
    }
    Ok(())
}

/// `func.call @f(%a, ...) {attrs}? : (types) -> results`.
fn call(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    let s = c.next()?;
    let Tok::Symbol(callee) = &s.tok else {
        return Err(c.unexpected(&s, "the callee `@name`"));
    };
    op.attrs
        .push(("callee".into(), Attr::Symbol(callee.clone()), s.start));
    c.expect_punct('(', "to open the call's arguments")?;
    op.operands = use_list_until_paren(c)?;
    functional(c, op)
}

/// `stablehlo.reduce(%x init: %v), ... applies stablehlo.add across dimensions = [..] : fn`,
/// or `... across dimensions = [..] : fn reducer(%a: t, %b: t) (%c: t, %d: t) { ... }`.
fn reduce(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    let mut inputs = Vec::new();
    let mut inits = Vec::new();
    loop {
        c.expect_punct('(', "to open `(%input init: %value)`")?;
        inputs.push(parse_use(c)?);
        c.expect_keyword("init", "after the reduced input")?;
        c.expect_punct(':', "after `init`")?;
        inits.push(parse_use(c)?);
        c.expect_punct(')', "to close `(%input init: %value)`")?;
        if !c.eat_punct(',')? {
            break;
        }
    }
    op.operands = inputs.into_iter().chain(inits).collect();
    let applies = if c.eat_keyword("applies")? {
        let t = c.next()?;
        match &t.tok {
            Tok::Ident(s) | Tok::Str(s) => Some((s.clone(), t.start)),
            _ => return Err(c.unexpected(&t, "the reducing operation after `applies`")),
        }
    } else {
        None
    };
    c.expect_keyword("across", "in `stablehlo.reduce`")?;
    keyword_list(c, op, "dimensions", "dimensions")?;
    functional(c, op)?;
    match applies {
        Some((inner, at)) => {
            let elem = match op.operand_types.first() {
                Some(Type::Tensor(t)) => {
                    Type::Tensor(crate::shape::ArrayShape::scalar(t.element_type))
                }
                _ => return Err(c.error_at(op.pos, "`stablehlo.reduce` needs a tensor input")),
            };
            op.regions.push(binary_region(&inner, at, elem));
        }
        None => {
            c.expect_keyword("reducer", "before the reduction region")?;
            let mut firsts = Vec::new();
            let mut seconds = Vec::new();
            while c.eat_punct('(')? {
                firsts.push(block_arg(c)?);
                c.expect_punct(',', "between the reducer's arguments")?;
                seconds.push(block_arg(c)?);
                c.expect_punct(')', "after the reducer's arguments")?;
            }
            let args = firsts.into_iter().chain(seconds).collect();
            op.regions.push(parse_region(c, args)?);
        }
    }
    Ok(())
}

/// `%name: type` of a block argument written outside its region.
fn block_arg(c: &mut Cursor) -> PResult<Arg> {
    let t = c.next()?;
    let Tok::Value(name, None) = t.tok else {
        return Err(c.unexpected(&t, "an argument `%name`"));
    };
    c.expect_punct(':', "after the argument name")?;
    let ty = parse_type(c)?;
    c.skip_location()?;
    Ok(Arg {
        name,
        ty,
        pos: t.start,
    })
}

/// The region `^bb0(%lhs: t, %rhs: t): %r = inner(%lhs, %rhs); return %r` of a compact
/// `reduce ... applies inner`. Its names contain a space, so they never clash with names of the
/// text.
fn binary_region(inner: &str, at: usize, ty: Type) -> Block {
    let arg = |n: &str| Arg {
        name: n.to_string(),
        ty: ty.clone(),
        pos: at,
    };
    let use_of = |n: &str| super::syntax::Use {
        name: n.to_string(),
        index: 0,
        pos: at,
    };
    let mut body = new_op(inner, at);
    body.results = vec![(" r".into(), 1)];
    body.operands = vec![use_of(" lhs"), use_of(" rhs")];
    body.operand_types = vec![ty.clone(), ty.clone()];
    body.result_types = vec![ty.clone()];
    let mut ret = new_op("stablehlo.return", at);
    ret.operands = vec![use_of(" r")];
    ret.operand_types = vec![ty.clone()];
    Block {
        args: vec![arg(" lhs"), arg(" rhs")],
        ops: vec![body, ret],
        pos: at,
    }
}

/// `stablehlo.while(%it = %init, ...) : types [attributes {...}] cond { ... } do { ... }`.
fn while_op(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    c.expect_punct('(', "to open the loop state of `while`")?;
    let mut names = Vec::new();
    if !c.eat_punct(')')? {
        loop {
            let t = c.next()?;
            let Tok::Value(name, None) = t.tok else {
                return Err(c.unexpected(&t, "a loop variable `%name`"));
            };
            names.push((name, t.start));
            c.expect_punct('=', "after the loop variable")?;
            op.operands.push(parse_use(c)?);
            if c.eat_punct(')')? {
                break;
            }
            c.expect_punct(',', "or `)` in the loop state")?;
        }
    }
    if !op.operands.is_empty() {
        c.expect_punct(':', "and the loop state types")?;
        loop {
            op.operand_types.push(parse_type(c)?);
            if !c.eat_punct(',')? {
                break;
            }
        }
    }
    if op.operand_types.len() != names.len() {
        return Err(c.error_at(
            op.pos,
            format!(
                "{} loop variables but {} types",
                names.len(),
                op.operand_types.len()
            ),
        ));
    }
    op.result_types = op.operand_types.clone();
    if c.eat_keyword("attributes")? {
        optional_attr_dict(c, op)?;
    }
    let args: Vec<Arg> = names
        .iter()
        .zip(&op.operand_types)
        .map(|((n, p), t)| Arg {
            name: n.clone(),
            ty: t.clone(),
            pos: *p,
        })
        .collect();
    c.expect_keyword("cond", "before the condition region of `while`")?;
    op.regions.push(parse_region(c, args.clone())?);
    c.expect_keyword("do", "before the body region of `while`")?;
    op.regions.push(parse_region(c, args)?);
    Ok(())
}
