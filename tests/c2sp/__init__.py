"""An independent small C2SP implementation (signed notes, cosignatures, Merkle proofs) and the
witness tests built on it."""
