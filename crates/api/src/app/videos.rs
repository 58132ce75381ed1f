//! The video use cases: track, list, read, patch (one and a batch), refresh now and untrack.
