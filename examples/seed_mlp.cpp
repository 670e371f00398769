// The main job's built-in default: the seed MLP exported for cpu/cpu, cuda/cuda and cpu/cuda
// under FakeTensorMode (no GPU and no tensor data needed), printed as PyTorch prints them.
#include <iostream>

#include "seed_mlp_model.h"

int main() {
  try {
    const fe::Device cpu = fe::kCPU, gpu = fe::Device::parse("cuda");
    fe::ExportedProgram ep_cpu = seed::fake_export(cpu, cpu);
    std::cout << "MLP export (CPU) succeeded.\n" << ep_cpu;
    fe::ExportedProgram ep_gpu = seed::fake_export(gpu, gpu);
    std::cout << "MLP export (GPU) succeeded.\n" << ep_gpu;
    fe::ExportedProgram ep_hybrid = seed::fake_export(cpu, gpu);
    std::cout << "CPU-GPU hybrid export succeeded.\n" << ep_hybrid;
    std::cout << "Tensor data allocated: " << fe::tensor_data_bytes_allocated() << " bytes\n";
    return 0;
  } catch (const fe::UserError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const fe::Error& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
}
