//! The creator use cases: track a creator, look one up, list, follower history, the job a creator read answers with.
