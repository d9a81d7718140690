"""Sorting and searching: sort/topk/kthvalue/median, unique, searchsorted/bucketize/isin."""
