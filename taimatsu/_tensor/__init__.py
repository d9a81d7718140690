"""The Tensor class (``core``), its printing, conversions and its methods: the one place
where Tensor methods reach the ops (``methods._bind``)."""
