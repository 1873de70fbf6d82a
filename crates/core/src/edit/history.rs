//! Undo/redo over whole snapshots: edits of one table are small, so keeping each state is
//! simpler and safer than inverting every operation.

/// A linear edit history: the current state, the states before it (undo) and after it (redo).
#[derive(Debug, Clone, PartialEq)]
pub struct History<T> {
    past: Vec<T>,
    current: T,
    future: Vec<T>,
    /// The group of the last recorded change (see [`History::apply_grouped`]).
    group: Option<String>,
}

impl<T: Clone + PartialEq> History<T> {
    /// A history whose only state is `initial`.
    pub fn new(initial: T) -> History<T> {
        History {
            past: Vec::new(),
            current: initial,
            future: Vec::new(),
            group: None,
        }
    }

    /// The state on screen.
    pub fn current(&self) -> &T {
        &self.current
    }

    /// Makes `next` current; the old state becomes undoable and the redo list is dropped.
    /// A `next` equal to the current state records nothing (a blur without a change).
    /// Returns whether anything was recorded.
    pub fn apply(&mut self, next: T) -> bool {
        self.group = None;
        self.record(next)
    }

    /// Like [`History::apply`], but consecutive changes of the same `group` (e.g. keystrokes
    /// in one field) make a single undo step: undo restores the state before the first one.
    pub fn apply_grouped(&mut self, next: T, group: &str) -> bool {
        if next == self.current {
            return false;
        }
        if self.group.as_deref() == Some(group) && !self.past.is_empty() {
            self.current = next;
            self.future.clear();
            return true;
        }
        self.group = Some(group.to_string());
        self.record(next)
    }

    fn record(&mut self, next: T) -> bool {
        if next == self.current {
            return false;
        }
        let previous = std::mem::replace(&mut self.current, next);
        self.past.push(previous);
        self.future.clear();
        true
    }

    /// Goes back one state; false when there is nothing to undo.
    pub fn undo(&mut self) -> bool {
        self.group = None;
        match self.past.pop() {
            Some(previous) => {
                let now = std::mem::replace(&mut self.current, previous);
                self.future.push(now);
                true
            }
            None => false,
        }
    }

    /// Goes forward one undone state; false when there is nothing to redo.
    pub fn redo(&mut self) -> bool {
        self.group = None;
        match self.future.pop() {
            Some(next) => {
                let now = std::mem::replace(&mut self.current, next);
                self.past.push(now);
                true
            }
            None => false,
        }
    }

    /// How many steps `undo` can go back.
    pub fn undo_depth(&self) -> usize {
        self.past.len()
    }

    /// How many steps `redo` can go forward.
    pub fn redo_depth(&self) -> usize {
        self.future.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_and_redo_walk_the_states_in_order() {
        let mut h = History::new(1);
        assert!(h.apply(2));
        assert!(h.apply(3));
        assert_eq!((*h.current(), h.undo_depth(), h.redo_depth()), (3, 2, 0));
        assert!(h.undo());
        assert!(h.undo());
        assert_eq!(*h.current(), 1);
        assert!(!h.undo(), "nothing before the first state");
        assert!(h.redo());
        assert_eq!((*h.current(), h.undo_depth(), h.redo_depth()), (2, 1, 1));
        // A new edit after an undo drops the redo list.
        assert!(h.apply(7));
        assert_eq!((*h.current(), h.redo_depth()), (7, 0));
        assert!(!h.redo());
        assert!(h.undo());
        assert_eq!(*h.current(), 2);
    }

    #[test]
    fn keystrokes_in_one_field_are_one_step() {
        let mut h = History::new(String::new());
        for text in ["4", "46", "46:", "46:0"] {
            assert!(h.apply_grouped(text.to_string(), "row 4 value 0"));
        }
        assert!(h.apply_grouped("x".to_string(), "title"));
        assert_eq!(h.undo_depth(), 2);
        assert!(h.undo());
        assert_eq!(h.current(), "46:0");
        assert!(h.undo());
        assert_eq!(h.current(), "");
        // After an undo the same group starts a new step.
        assert!(h.redo());
        assert!(h.apply_grouped("46:06".to_string(), "row 4 value 0"));
        assert_eq!(h.undo_depth(), 2);
    }

    #[test]
    fn an_unchanged_state_is_not_recorded() {
        let mut h = History::new("a".to_string());
        assert!(!h.apply("a".to_string()));
        assert_eq!(h.undo_depth(), 0);
    }
}
