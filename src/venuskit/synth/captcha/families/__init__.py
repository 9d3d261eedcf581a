"""CAPTCHA families; each module registers its types with `registry.register` on import."""
