//! Two pieces of work at once, for a start that has a core free.

/// `there` on a thread named `name` beside `here` on this one, both results once both are
/// done; `there` runs here after `here` when no thread can be started. A panic in `there`
/// goes on in the caller.
pub fn beside<A: Send, B>(
    name: &str,
    there: impl FnOnce() -> A + Send + Copy,
    here: impl FnOnce() -> B,
) -> (A, B) {
    std::thread::scope(|scope| {
        let beside = std::thread::Builder::new()
            .name(name.into())
            .spawn_scoped(scope, there);
        let done_here = here();
        let done_there = match beside {
            Ok(beside) => beside
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => there(),
        };
        (done_there, done_here)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_results_come_back_each_from_its_own_work() {
        let words = ["a", "b"];
        let (there, here) = super::beside("test-beside", || words.len(), || words.join("-"));
        assert_eq!((there, here.as_str()), (2, "a-b"));
    }
}
