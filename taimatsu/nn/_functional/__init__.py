"""The pieces of ``torch.nn.functional``, one file per topic; ``nn/functional.py`` re-exports them."""
