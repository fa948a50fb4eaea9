flow:
  test.nop:
    - opts: {a: 1,
  b: [x,
y], c: "two
 words"}
    - list: [
        1, 2,
      3]
    - octal: 0644
    - bools: [yes, no, on, off, y, n, True]
    - floats: [1e3, 1.5e+3, 1_000]
    - stamp: 2024-01-02
    - sexa: 1:30
    - nulls: [~, null, ]
