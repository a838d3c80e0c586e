use super::*;
use crate::generate::{valid_document, Config, SplitMix64};
use crate::printer::print_document;
use crate::ErrorKind;

/// The stage of our front end that must reject a document breaking `rule`.
fn expected_kind(rule: Rule) -> ErrorKind {
    match rule {
        Rule::LiteralOnLeft | Rule::InvocationOnLeft => ErrorKind::Syntax,
        Rule::BroadcastMismatch
        | Rule::ConvChannelMismatch
        | Rule::AxisOutOfRange
        | Rule::ReshapeVolumeMismatch => ErrorKind::Shape,
        _ => ErrorKind::Semantic,
    }
}

#[test]
fn every_rule_applies_and_our_front_end_rejects_it() {
    for rule in Rule::ALL {
        let mut applied = 0;
        for seed in 0..400 {
            let doc = valid_document(&mut SplitMix64::new(seed), &Config::default());
            let Some(mutated) = mutate(&doc, rule, &mut SplitMix64::new(seed ^ 0x5eed)) else {
                continue;
            };
            assert_ne!(mutated, doc, "{rule:?} changed nothing");
            let text = print_document(&mutated);
            let verdict = crate::parse_document(&text).and_then(|d| crate::eval::evaluate(&d));
            match verdict {
                Ok(_) => panic!("{rule:?} (seed {seed}) accepted:\n{text}"),
                Err(err) => assert_eq!(
                    err.kind,
                    expected_kind(rule),
                    "{rule:?} (seed {seed}): {err}\n{text}"
                ),
            }
            applied += 1;
            if applied == 8 {
                break;
            }
        }
        assert_eq!(applied, 8, "{rule:?} applies to too few documents");
    }
}

#[test]
fn mutations_are_deterministic() {
    let doc = valid_document(&mut SplitMix64::new(3), &Config::default());
    for rule in Rule::ALL {
        let a = mutate(&doc, rule, &mut SplitMix64::new(9));
        let b = mutate(&doc, rule, &mut SplitMix64::new(9));
        assert_eq!(a, b, "{rule:?}");
    }
}
