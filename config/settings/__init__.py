"""Settings per mode: base (shared), local (the embedded default), production, test."""
