# expect: illegal -- an integer comparison leaves int64: (0 - N) * M * 3 reaches -3 * (2^31 - 1)^2 (the product's corners with mixed signs)
params N, M where N >= 1, M >= 1
tensor y[1] f32
kernel k { if (0 - N) * M * 3 < 0 { y[0] = 1.0 } }
