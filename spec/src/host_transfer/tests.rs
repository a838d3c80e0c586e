use super::*;
use crate::collective::run_devices_with;
use crate::element_type::ElementType;
use crate::hlo::parse_module;
use crate::literal::ArrayLiteral;
use crate::shape::ArrayShape;

fn scalar(v: i32) -> Literal {
    let mut a = ArrayLiteral::zeros(ArrayShape::new(ElementType::S32, vec![]));
    a.set_bits(&[], v as u32 as u128);
    Literal::Array(a)
}

fn s32() -> Shape {
    Shape::array(ElementType::S32, vec![])
}

/// The root of a one-line entry computation over a token `t`.
fn instruction(header: &str, line: &str) -> HloInstruction {
    let text = format!(
        "HloModule m{header}\nENTRY main {{\n  t = token[] after-all()\n  ROOT {line}\n}}\n"
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m.entry_computation().root_instruction().clone()
}

#[test]
fn infeed_reads_in_order_and_reports_an_empty_queue() {
    let f = Feeds::new(vec![scalar(1), scalar(2)]);
    assert_eq!(f.infeed(0, &s32()).unwrap(), scalar(1));
    assert_eq!(f.infeed(0, &s32()).unwrap(), scalar(2));
    let err = f.infeed(3, &s32()).unwrap_err().to_string();
    assert!(
        err.contains("device 3") && err.contains("empty after 2"),
        "{err}"
    );
    // The empty tuple reads nothing.
    assert_eq!(
        f.infeed(0, &Shape::Tuple(vec![])).unwrap(),
        Literal::Tuple(vec![])
    );
}

#[test]
fn infeed_checks_the_value_shape() {
    let f = Feeds::new(vec![scalar(1)]);
    let err = f
        .infeed(0, &Shape::array(ElementType::F32, vec![2]))
        .unwrap_err();
    assert!(matches!(err, BackendError::Invalid(m) if m.contains("reads f32[2]")));
}

#[test]
fn pairs_are_read_from_the_frontend_attribute_and_checked() {
    let grid = DeviceGrid {
        replicas: 3,
        partitions: 1,
    };
    let line = |pairs: &str| {
        format!(
            "r = (s32[], u32[], token[]) recv(t), channel_id=1, frontend_attributes={{{SEND_RECV_PAIRS}=\"{pairs}\"}}"
        )
    };
    let ok = instruction(", replica_count=3", &line("{{0,1},{1,2}}"));
    assert_eq!(channel_pairs(&ok, grid).unwrap(), vec![(0, 1), (1, 2)]);
    for bad in ["{{0,3}}", "{{0,1},{0,2}}", "{{0,1},{2,1}}", "{{0,1,2}}"] {
        let i = instruction(", replica_count=3", &line(bad));
        assert!(
            matches!(channel_pairs(&i, grid), Err(BackendError::Invalid(_))),
            "{bad}"
        );
    }
    let none = instruction(
        ", replica_count=3",
        "r = (s32[], u32[], token[]) recv(t), channel_id=1",
    );
    assert!(matches!(
        channel_pairs(&none, grid),
        Err(BackendError::Unsupported(_))
    ));
    let host = instruction(
        ", replica_count=3",
        &format!("{}, is_host_transfer=true", line("{{0,1}}")),
    );
    assert!(matches!(
        channel_pairs(&host, grid),
        Err(BackendError::Unsupported(m)) if m.contains("host")
    ));
}

fn channel_ops(pairs: &str) -> (HloInstruction, HloInstruction, HloInstruction) {
    let attrs = format!("channel_id=7, frontend_attributes={{{SEND_RECV_PAIRS}=\"{pairs}\"}}");
    let text = format!(
        "HloModule m, replica_count=2\nENTRY main {{\n  x = s32[] parameter(0)\n  t = token[] after-all()\n  s = (s32[], u32[], token[]) send(x, t), {attrs}\n  r = (s32[], u32[], token[]) recv(t), {attrs}\n  ROOT d = (s32[], token[]) recv-done(r), channel_id=7\n}}\n"
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = m.entry_computation();
    let find = |n: &str| c.instructions.iter().find(|i| i.name == n).unwrap().clone();
    (find("s"), find("r"), find("d"))
}

#[test]
fn a_send_reaches_the_recv_of_its_target_and_others_get_nothing() {
    let (s, r, d) = channel_ops("{{0,1}}");
    let grid = DeviceGrid {
        replicas: 2,
        partitions: 1,
    };
    let out = run_devices_with(grid, &[], |dev| {
        send(dev, &s, scalar(10 + dev.id as i32))?;
        recv(dev, &r)?;
        Ok(match recv_done(dev, &d)? {
            Some(v) => (*v).clone(),
            None => scalar(-1),
        })
    })
    .unwrap();
    assert_eq!(out, Literal::Tuple(vec![scalar(-1), scalar(10)]));
}

#[test]
fn a_recv_done_before_the_peers_send_is_a_deadlock_not_a_hang() {
    let (s, r, d) = channel_ops("{{0,1},{1,0}}");
    let grid = DeviceGrid {
        replicas: 2,
        partitions: 1,
    };
    // Seed 004's cycle: each device waits for the other's value before sending its own.
    let err = run_devices_with(grid, &[], |dev| {
        recv(dev, &r)?;
        let v = recv_done(dev, &d)?;
        send(dev, &s, scalar(1))?;
        Ok(v.map_or(scalar(0), |v| (*v).clone()))
    })
    .unwrap_err();
    assert!(
        matches!(&err, BackendError::Failure(m) if m.starts_with("deadlock") && m.contains("recv-done")),
        "{err}"
    );
}

#[test]
fn a_recv_done_without_a_recv_is_invalid() {
    let (_, _, d) = channel_ops("{{0,1}}");
    let err = run_devices_with(DeviceGrid::SINGLE, &[], |dev| {
        recv_done(dev, &d).map(|_| scalar(0))
    })
    .unwrap_err();
    assert!(matches!(err, BackendError::Invalid(_)), "{err}");
    // A computation evaluated on its own has no queues.
    let err = recv_done(crate::collective::Device::single(), &d).unwrap_err();
    assert!(matches!(err, BackendError::Unsupported(_)), "{err}");
}

#[test]
fn run_module_splits_queues_and_joins_outfeeds() {
    let text = "HloModule m, replica_count=2\nENTRY main {\n  x = s32[] parameter(0)\n  t = token[] after-all()\n  i = (s32[], token[]) infeed(t)\n  v = s32[] get-tuple-element(i), index=0\n  t2 = token[] get-tuple-element(i), index=1\n  o = token[] outfeed(v, t2), outfeed_shape=s32[]\n  ROOT y = s32[] add(x, v)\n}\n";
    let m = parse_module(text).unwrap();
    let args = [scalar(1), scalar(5), scalar(2), scalar(7)];
    // A stand-in evaluator: reads one infeed value, writes it out, returns param + value.
    let out = run_module(&m, &args, |dev, params| {
        assert_eq!(params.len(), 1);
        let v = dev.feeds.infeed(dev.id, &s32())?;
        dev.feeds.outfeed(v.clone())?;
        let add = |a: &Literal, b: &Literal| {
            let x = a.as_array().unwrap().get_bits(&[]) as i32;
            let y = b.as_array().unwrap().get_bits(&[]) as i32;
            scalar(x + y)
        };
        Ok(add(&params[0], &v))
    })
    .unwrap();
    let device =
        |root: i32, fed: i32| Literal::Tuple(vec![scalar(root), Literal::Tuple(vec![scalar(fed)])]);
    assert_eq!(out, Literal::Tuple(vec![device(6, 5), device(9, 7)]));
    assert_eq!(static_infeed_shapes(&m), vec![s32()]);
    // Without infeed, extra arguments are an error.
    let plain =
        parse_module("HloModule m\nENTRY main {\n  ROOT x = s32[] parameter(0)\n}\n").unwrap();
    let err = run_module(&plain, &[scalar(1), scalar(2)], |_, p| Ok(p[0].clone())).unwrap_err();
    assert!(matches!(err, BackendError::Invalid(m) if m.contains("only a module with `infeed`")));
}
