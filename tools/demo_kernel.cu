// A tiny CUDA library for the demo wheelhouse (built only where nvcc exists).
__global__ void demo_scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
extern "C" void demo_launch(float* x, float a, int n) { demo_scale<<<(n + 255) / 256, 256>>>(x, a, n); }
