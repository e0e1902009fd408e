"""Who asks the models: providers, the cascade, the cache (truncation lives in the core)."""
