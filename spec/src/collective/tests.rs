use super::*;
use crate::hlo::parse_module;

fn instr(text: &str) -> HloInstruction {
    let m = parse_module(&format!(
        "HloModule m\nsum {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\nENTRY e {{\n  x = f32[4]{{0}} parameter(0)\n  ROOT r = {text}\n}}\n"
    ))
    .unwrap();
    m.entry_computation().root_instruction().clone()
}

#[test]
fn grid_comes_from_the_header() {
    let m = parse_module(
        "HloModule m, replica_count=4, num_partitions=2\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n",
    )
    .unwrap();
    let g = DeviceGrid::of(&m).unwrap();
    assert_eq!((g.replicas, g.partitions, g.devices()), (4, 2, 8));
    assert_eq!((g.replica_of(5), g.partition_of(5)), (2, 1));
    let plain = parse_module("HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n").unwrap();
    assert_eq!(DeviceGrid::of(&plain).unwrap(), DeviceGrid::SINGLE);
    let bad =
        parse_module("HloModule m, replica_count=0\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n")
            .unwrap();
    assert!(DeviceGrid::of(&bad).is_err());
    let mut m2 = plain.clone();
    set_grid(
        &mut m2,
        DeviceGrid {
            replicas: 3,
            partitions: 1,
        },
    );
    assert!(m2.to_string().starts_with("HloModule m, replica_count=3\n"));
    assert_eq!(
        DeviceGrid::of(&parse_module(&m2.to_string()).unwrap())
            .unwrap()
            .replicas,
        3
    );
}

#[test]
fn groups_read_both_forms() {
    let i = instr("f32[4]{0} all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=sum");
    assert_eq!(replica_groups(&i).unwrap(), vec![vec![0, 2], vec![1, 3]]);
    let i = instr("f32[4]{0} all-reduce(x), replica_groups=[2,2]<=[4], to_apply=sum");
    assert_eq!(replica_groups(&i).unwrap(), vec![vec![0, 1], vec![2, 3]]);
    let i = instr("f32[4]{0} all-reduce(x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=sum");
    assert_eq!(replica_groups(&i).unwrap(), vec![vec![0, 2], vec![1, 3]]);
    let i = instr("f32[4]{0} all-reduce(x), replica_groups={}, to_apply=sum");
    assert!(replica_groups(&i).unwrap().is_empty());
    let i = instr("f32[4]{0} all-reduce(x), replica_groups={{0,x}}, to_apply=sum");
    assert!(replica_groups(&i).is_err());
    assert_eq!(groups_text(&[vec![0, 2], vec![1]]), "{{0,2},{1}}");
}

#[test]
fn groups_must_partition_the_ids() {
    assert!(check_groups(&[vec![0, 1], vec![2, 3]], 4, true).is_ok());
    assert!(check_groups(&[vec![0, 1], vec![1, 3]], 4, false).is_err());
    assert!(check_groups(&[vec![0, 1]], 4, false).is_err());
    assert!(check_groups(&[vec![0, 4]], 4, false).is_err());
    assert!(check_groups(&[vec![0, 1, 2], vec![3]], 4, true).is_err());
    assert!(check_groups(&[vec![0, 1, 2], vec![3]], 4, false).is_ok());
}

#[test]
fn participants_follow_the_group_mode() {
    let grid = DeviceGrid {
        replicas: 2,
        partitions: 2,
    };
    // Cross-replica: replica ids, within the device's partition.
    let i = instr("f32[4]{0} all-reduce(x), replica_groups={{1,0}}, to_apply=sum");
    assert_eq!(group_mode(&i).unwrap(), GroupMode::CrossReplica);
    assert_eq!(participants(&i, grid, 1).unwrap(), vec![3, 1]);
    // Cross-replica-and-partition: each replica with all its partitions.
    let i = instr(
        "f32[4]{0} all-reduce(x), channel_id=1, replica_groups={{1},{0}}, use_global_device_ids=false, to_apply=sum",
    );
    assert_eq!(group_mode(&i).unwrap(), GroupMode::CrossReplicaAndPartition);
    assert_eq!(participants(&i, grid, 3).unwrap(), vec![2, 3]);
    // Flattened ids.
    let i = instr(
        "f32[4]{0} all-reduce(x), channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=sum",
    );
    assert_eq!(participants(&i, grid, 2).unwrap(), vec![1, 2]);
    // Cross-partition (all-to-all with a channel).
    let i = instr("f32[4]{0} all-to-all(x), channel_id=2, dimensions={0}");
    assert_eq!(group_mode(&i).unwrap(), GroupMode::CrossPartition);
    assert_eq!(participants(&i, grid, 2).unwrap(), vec![2, 3]);
    let i = instr("f32[4]{0} all-reduce(x), use_global_device_ids=true, to_apply=sum");
    assert!(group_mode(&i).is_err());
}

#[test]
fn permute_peers_name_source_and_domain() {
    let grid = DeviceGrid {
        replicas: 4,
        partitions: 1,
    };
    let i = instr("f32[4]{0} collective-permute(x), source_target_pairs={{0,1},{1,2},{2,0}}");
    assert_eq!(
        permute_peers(&i, grid, 0).unwrap(),
        (Some(2), vec![0, 1, 2, 3])
    );
    assert_eq!(permute_peers(&i, grid, 3).unwrap().0, None);
    let twice = instr("f32[4]{0} collective-permute(x), source_target_pairs={{0,1},{2,1}}");
    assert!(permute_peers(&twice, grid, 0).is_err());
    let out = instr("f32[4]{0} collective-permute(x), source_target_pairs={{0,4}}");
    assert!(permute_peers(&out, grid, 0).is_err());
}

fn scalar(v: u32) -> Literal {
    crate::hlo::parse_literal(&format!("u32[] {v}")).unwrap()
}

#[test]
fn devices_exchange_values_in_group_order() {
    let grid = DeviceGrid {
        replicas: 4,
        partitions: 1,
    };
    let out = run_devices(grid, |d| {
        // Two rounds at the same site: the n-th meets the n-th.
        let mut total = 0u32;
        for round in 0..2u32 {
            let group: Vec<usize> = if d.id % 2 == 0 {
                vec![0, 2]
            } else {
                vec![3, 1]
            };
            let got = d.exchange("site", &group, scalar(10 * round + d.id as u32))?;
            for v in got {
                let Literal::Array(a) = v.as_ref() else {
                    unreachable!()
                };
                total = total * 100 + a.get_bits_linear(0) as u32;
            }
        }
        Ok(scalar(total))
    })
    .unwrap();
    let Literal::Tuple(items) = out else {
        panic!("a tuple of 4")
    };
    let got: Vec<u32> = items
        .iter()
        .map(|l| match l {
            Literal::Array(a) => a.get_bits_linear(0) as u32,
            _ => unreachable!(),
        })
        .collect();
    // Device 0: round 0 gives (0, 2), round 1 (10, 12).
    assert_eq!(got[0], ((2) * 100 + 10) * 100 + 12);
    assert_eq!(got[1], ((3 * 100 + 1) * 100 + 13) * 100 + 11);
}

#[test]
fn devices_lend_their_parameters_without_copying() {
    let grid = DeviceGrid {
        replicas: 3,
        partitions: 1,
    };
    let args = [scalar(7), scalar(8), scalar(9)];
    let per_device: Vec<&[Literal]> = args.chunks(1).collect();
    let out = run_devices_lending(grid, &[], &per_device, |d| {
        let Literal::Array(mine) = &per_device[d.id][0] else {
            unreachable!()
        };
        // The parameter itself is lent by number; an equal copy is not the parameter.
        let lent = d.as_parameter(mine).expect("its own parameter");
        assert!(matches!(lent, Lent::Parameter(0)));
        assert!(d.as_parameter(&mine.clone()).is_none());
        let got = d.lend("site", &[0, 1, 2], vec![lent])?;
        let mut total = 0;
        for (member, arrays) in got.iter().enumerate() {
            let a = d.lent(member, &arrays[0])?;
            // The same buffer as the member's argument, not a copy.
            let Literal::Array(theirs) = &per_device[member][0] else {
                unreachable!()
            };
            assert!(std::ptr::eq(a, theirs));
            total = total * 100 + a.get_bits_linear(0) as u32;
        }
        // A site where one member moves a value and another lends is refused.
        if d.id == 0 {
            d.exchange("mixed", &[0, 1], scalar(1))?;
        } else if d.id == 1 {
            d.lend("mixed", &[0, 1], vec![Lent::Parameter(0)])?;
        }
        Ok(scalar(total))
    })
    .unwrap_err();
    assert!(
        out.to_string()
            .contains("both moved values and lent arrays"),
        "{out}"
    );
    // Without the mixed site every device sees 7, 8, 9 in group order.
    let out = run_devices_lending(grid, &[], &per_device, |d| {
        let Literal::Array(mine) = &per_device[d.id][0] else {
            unreachable!()
        };
        let got = d.lend("site", &[2, 0, 1], vec![d.as_parameter(mine).unwrap()])?;
        let mut total = 0;
        for (i, arrays) in got.iter().enumerate() {
            total = total * 100 + d.lent([2, 0, 1][i], &arrays[0])?.get_bits_linear(0) as u32;
        }
        Ok(scalar(total))
    })
    .unwrap();
    assert_eq!(out, Literal::Tuple(vec![scalar(90708); 3]));
    // A run that lends no parameters: nothing is a parameter, and a stray number is an error.
    let out = run_devices(grid, |d| {
        let Literal::Array(a) = scalar(1) else {
            unreachable!()
        };
        assert!(d.as_parameter(&a).is_none());
        d.lent(0, &Lent::Parameter(0)).map(|_| scalar(0))
    });
    assert!(matches!(out, Err(BackendError::Failure(_))), "{out:?}");
}

#[test]
fn a_device_on_its_own_meets_only_itself() {
    let d = Device::single();
    let got = d.exchange("site", &[0], scalar(4)).unwrap();
    assert_eq!(*got[0], scalar(4));
    assert!(matches!(
        d.exchange("site", &[0, 1], scalar(4)),
        Err(BackendError::Unsupported(_))
    ));
    assert!(matches!(d.take("k"), Err(BackendError::Unsupported(_))));
}

#[test]
fn a_missing_partner_is_a_deadlock_not_a_hang() {
    let grid = DeviceGrid {
        replicas: 3,
        partitions: 1,
    };
    let err = run_devices(grid, |d| {
        if d.id == 2 {
            // Never reaches the exchange.
            return Ok(scalar(0));
        }
        d.exchange("site", &[0, 1, 2], scalar(1))?;
        Ok(scalar(1))
    })
    .unwrap_err();
    assert!(err.to_string().contains("deadlock"), "{err}");
    assert!(err.to_string().contains("[2]"), "{err}");
    // A device's own error is reported before the deadlock it causes.
    let err = run_devices(grid, |d| {
        if d.id == 1 {
            return Err(BackendError::Invalid("bad operand".into()));
        }
        d.exchange("site", &[0, 1, 2], scalar(1))?;
        Ok(scalar(1))
    })
    .unwrap_err();
    assert_eq!(err, BackendError::Invalid("bad operand".into()));
}

#[test]
fn arguments_split_by_device() {
    let grid = DeviceGrid {
        replicas: 2,
        partitions: 1,
    };
    let args = vec![scalar(1), scalar(2), scalar(3), scalar(4)];
    let split = split_arguments(grid, &args).unwrap();
    assert_eq!(split[1], &args[2..4]);
    assert!(split_arguments(grid, &args[..3]).is_err());
    assert_eq!(join_results(vec![scalar(1)]), scalar(1));
}
