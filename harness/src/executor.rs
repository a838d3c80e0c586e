//! Runs the cases of a sweep on worker threads with a per-case time limit.
//!
//! A hung backend cannot be stopped from outside its thread, so a case that exceeds the limit is
//! reported as [`Finished::TimedOut`], its worker is abandoned (it exits when, if ever, the case
//! returns; its late result is dropped) and a fresh worker takes its place. The sweep goes on.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a job reports about its progress: the stage it is in (the job defines the numbering; the
/// harness uses 0 = generating, 1 = reference, 1 + k = k-th compared backend).
#[derive(Debug, Default)]
pub struct Stage(AtomicUsize);

impl Stage {
    pub fn set(&self, stage: usize) {
        self.0.store(stage, Ordering::Relaxed);
    }
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// The outcome of one job.
#[derive(Debug)]
pub enum Finished<T> {
    Done {
        index: u64,
        value: T,
    },
    /// The job on `index` panicked (outside whatever the job catches itself).
    Panicked {
        index: u64,
        message: String,
    },
    /// The job on `index` ran past the time limit while in `stage`.
    TimedOut {
        index: u64,
        stage: usize,
        after: Duration,
    },
}

/// The next index to run, or `None` when the sweep is over (called by the workers, one at a time).
pub type NextIndex = Box<dyn FnMut() -> Option<u64> + Send>;

struct Worker {
    /// The index it runs and since when; `None` between jobs.
    current: Arc<Mutex<Option<(u64, Instant)>>>,
    stage: Arc<Stage>,
    abandoned: Arc<AtomicBool>,
}

enum Message<T> {
    Done {
        worker: usize,
        index: u64,
        value: std::thread::Result<T>,
    },
    Exited {
        worker: usize,
    },
}

/// Runs `job(index, stage)` for every index `next` yields, on `workers` threads, and calls
/// `on_finished` on the calling thread for each outcome, in completion order. With `limit`, a job
/// running longer is reported as timed out and abandoned. Returns when `next` is exhausted and
/// every live worker has finished.
pub fn execute<T, F>(
    workers: usize,
    next: NextIndex,
    job: Arc<F>,
    limit: Option<Duration>,
    mut on_finished: impl FnMut(Finished<T>),
) where
    T: Send + 'static,
    F: Fn(u64, &Stage) -> T + Send + Sync + 'static,
{
    let next = Arc::new(Mutex::new(next));
    let (tx, rx) = mpsc::channel::<Message<T>>();
    let mut pool: Vec<Worker> = Vec::new();
    let mut live = 0usize;
    let spawn = |pool: &mut Vec<Worker>| {
        let id = pool.len();
        let w = Worker {
            current: Arc::new(Mutex::new(None)),
            stage: Arc::new(Stage::default()),
            abandoned: Arc::new(AtomicBool::new(false)),
        };
        let (current, stage, abandoned) = (w.current.clone(), w.stage.clone(), w.abandoned.clone());
        let (next, job, tx) = (next.clone(), job.clone(), tx.clone());
        pool.push(w);
        std::thread::Builder::new()
            .name(format!("case-worker-{id}"))
            .spawn(move || {
                loop {
                    if abandoned.load(Ordering::Relaxed) {
                        return;
                    }
                    let index = match next.lock() {
                        Ok(mut n) => (*n)(),
                        Err(_) => None,
                    };
                    let Some(index) = index else { break };
                    if let Ok(mut c) = current.lock() {
                        *c = Some((index, Instant::now()));
                    }
                    stage.set(0);
                    let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        job(index, &stage)
                    }));
                    if let Ok(mut c) = current.lock() {
                        *c = None;
                    }
                    if abandoned.load(Ordering::Relaxed) {
                        return;
                    }
                    if tx
                        .send(Message::Done {
                            worker: id,
                            index,
                            value,
                        })
                        .is_err()
                    {
                        return;
                    }
                }
                let _ = tx.send(Message::Exited { worker: id });
            })
            .is_ok()
    };
    for _ in 0..workers.max(1) {
        if spawn(&mut pool) {
            live += 1;
        }
    }
    let tick = limit.map_or(Duration::from_millis(500), |l| {
        (l / 4).clamp(Duration::from_millis(5), Duration::from_millis(200))
    });
    while live > 0 {
        match rx.recv_timeout(tick) {
            Ok(Message::Done {
                worker,
                index,
                value,
            }) => {
                if !pool[worker].abandoned.load(Ordering::Relaxed) {
                    on_finished(match value {
                        Ok(value) => Finished::Done { index, value },
                        Err(payload) => Finished::Panicked {
                            index,
                            message: panic_message(payload.as_ref()),
                        },
                    });
                }
            }
            Ok(Message::Exited { worker }) => {
                if !pool[worker].abandoned.load(Ordering::Relaxed) {
                    live -= 1;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let Some(limit) = limit else { continue };
        for k in 0..pool.len() {
            if pool[k].abandoned.load(Ordering::Relaxed) {
                continue;
            }
            let overdue = match pool[k].current.lock() {
                Ok(c) => c.filter(|(_, t)| t.elapsed() > limit),
                Err(_) => None,
            };
            if let Some((index, started)) = overdue {
                pool[k].abandoned.store(true, Ordering::Relaxed);
                live -= 1;
                on_finished(Finished::TimedOut {
                    index,
                    stage: pool[k].stage.get(),
                    after: started.elapsed(),
                });
                if spawn(&mut pool) {
                    live += 1;
                }
            }
        }
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic payload".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(n: u64) -> NextIndex {
        let mut i = 0;
        Box::new(move || {
            (i < n).then(|| {
                i += 1;
                i - 1
            })
        })
    }

    #[test]
    fn every_index_runs_once() {
        let mut seen = Vec::new();
        execute(
            3,
            counter(100),
            Arc::new(|i: u64, _: &Stage| i * 2),
            None,
            |f| match f {
                Finished::Done { index, value } => {
                    assert_eq!(value, index * 2);
                    seen.push(index);
                }
                f => panic!("unexpected {f:?}"),
            },
        );
        seen.sort();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn a_hanging_job_times_out_and_the_rest_still_run() {
        let mut done = Vec::new();
        let mut timed_out = Vec::new();
        execute(
            2,
            counter(20),
            Arc::new(|i: u64, stage: &Stage| {
                if i == 7 {
                    stage.set(2);
                    std::thread::sleep(Duration::from_secs(3600));
                }
                i
            }),
            Some(Duration::from_millis(100)),
            |f| match f {
                Finished::Done { index, .. } => done.push(index),
                Finished::Panicked { .. } => panic!("no panic expected"),
                Finished::TimedOut {
                    index,
                    stage,
                    after,
                } => {
                    assert!(after >= Duration::from_millis(100));
                    timed_out.push((index, stage));
                }
            },
        );
        done.sort();
        let expected: Vec<u64> = (0..20).filter(|&i| i != 7).collect();
        assert_eq!(done, expected);
        assert_eq!(timed_out, vec![(7, 2)]);
    }

    #[test]
    fn a_panicking_job_is_reported_and_the_rest_still_run() {
        let (mut done, mut panicked) = (0, Vec::new());
        execute(
            2,
            counter(10),
            Arc::new(|i: u64, _: &Stage| {
                assert!(i != 3, "case three");
                i
            }),
            None,
            |f| match f {
                Finished::Done { .. } => done += 1,
                Finished::Panicked { index, message } => panicked.push((index, message)),
                Finished::TimedOut { .. } => panic!("no limit"),
            },
        );
        assert_eq!(done, 9);
        assert_eq!(panicked, vec![(3, "case three".to_string())]);
    }
}
