pragma circom 2.0.0;

// A few multiplications with constant coefficients (so the zkey's coefficient
// section holds values other than 1), one public input x and one public output y.
template MulChain(n) {
    signal input x;
    signal input a;
    signal input b;
    signal output y;
    signal t[n];
    t[0] <== a * b;
    for (var i = 1; i < n; i++) {
        t[i] <== (t[i-1] + 3 * x) * (a - 5 * i);
    }
    y <== t[n-1] * t[n-1] - 7 * b + 11;
}

component main {public [x]} = MulChain(5);
