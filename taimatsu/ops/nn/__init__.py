"""Neural-network kernels with their own backward nodes: convolution, pooling, normalisation,
embedding, losses, activations, resampling, bilinear and the legacy cross-map LRN."""
