"""The peripheral's own tooling: its report, the configuration sweep and the formal proofs (over eda/)."""
