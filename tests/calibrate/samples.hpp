// Synthetic tool outputs in the layouts the tools print, for formats that data/calibration-data/
// holds no file of. The numbers are made up for the tests (they are not measurements); the
// layouts follow each tool's printing code and documented examples.
#pragma once

#include <string>

namespace fathom::calib::test {

// fio --output-format=json, after a note fio prints on stdout. Job 0 is a sequential read with
// group reporting; job 1 a mixed random read/write whose options are partly global.
inline const std::string kFioJson =
    R"(note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1
{
  "fio version" : "fio-3.33",
  "timestamp" : 1700000000,
  "global options" : {
    "ioengine" : "libaio",
    "direct" : "1",
    "iodepth" : "64"
  },
  "jobs" : [
    {
      "jobname" : "seqread",
      "groupid" : 0,
      "error" : 0,
      "job options" : {
        "rw" : "read",
        "bs" : "1M",
        "iodepth" : "255",
        "numjobs" : "4"
      },
      "read" : {
        "io_bytes" : 107374182400,
        "bw_bytes" : 9300000000,
        "bw" : 9082031,
        "iops" : 8869.2,
        "clat_ns" : {
          "min" : 1000,
          "max" : 900000,
          "mean" : 115000.5,
          "percentile" : {
            "50.000000" : 110592,
            "99.000000" : 250880,
            "99.900000" : 399360
          }
        },
        "lat_ns" : {
          "mean" : 116000.25
        }
      },
      "write" : {
        "io_bytes" : 0,
        "bw_bytes" : 0,
        "iops" : 0.000000
      }
    },
    {
      "jobname" : "mixed",
      "groupid" : 1,
      "error" : 0,
      "job options" : {
        "rw" : "randrw",
        "bs" : "4k"
      },
      "read" : {
        "io_bytes" : 4096000,
        "bw_bytes" : 2048000,
        "iops" : 500.0
      },
      "write" : {
        "io_bytes" : 2048000,
        "bw_bytes" : 1024000,
        "iops" : 250.0
      },
      "trim" : {
        "io_bytes" : 0,
        "bw_bytes" : 0,
        "iops" : 0.0
      }
    }
  ]
}
)";

// BabelStream's default output (CUDA build).
inline const std::string kBabelStream = R"(BabelStream
Version: 4.0
Implementation: CUDA
Running kernels 100 times
Precision: double
Array size: 268.4 MB (=0.3 GB)
Total size: 805.3 MB (=0.8 GB)
Using CUDA device NVIDIA H100 80GB HBM3
Driver: 12040
Function    MBytes/sec  Min (sec)   Max         Average     
Copy        3001234.500 0.00018     0.00019     0.00018     
Mul         2998765.250 0.00018     0.00019     0.00018     
Add         3050000.000 0.00026     0.00027     0.00026     
Triad       3051000.125 0.00026     0.00027     0.00026     
Dot         3200000.000 0.00017     0.00018     0.00017     
)";

// BabelStream --csv.
inline const std::string kBabelStreamCsv =
    "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
    "Copy,100,33554432,8,3001234.5,0.000179,0.000190,0.000183\n"
    "Mul,100,33554432,8,2998765.25,0.000179,0.000190,0.000183\n"
    "Add,100,33554432,8,3050000,0.000264,0.000270,0.000266\n"
    "Triad,100,33554432,8,3051000.125,0.000264,0.000270,0.000266\n"
    "Dot,100,33554432,8,3200000,0.000168,0.000180,0.000172\n";

// nvbandwidth's text output: a version banner, a host-to-device test, a waived test, a
// device-to-device test with N/A on the diagonal, and a latency test that is no bandwidth.
inline const std::string kNvbandwidth = R"(nvbandwidth Version: v0.7
Built from Git version: v0.7

NOTE: This tool reports current measured bandwidth on your system.
Additional system-specific tuning may be required to achieve maximal peak bandwidth.

CUDA Runtime Version: 12040
CUDA Driver Version: 12040
Driver Version: 550.54.15

Device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)
Device 1: NVIDIA H100 80GB HBM3 (00000000:3b:00)

Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0     55.20     55.10

SUM host_to_device_memcpy_ce 110.30

Running device_to_device_memcpy_read_sm.
Waived.

Running device_to_device_memcpy_read_ce.
memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0       N/A    390.50
 1    391.25       N/A

SUM device_to_device_memcpy_read_ce 781.75

Running host_device_latency_sm.
memory latency SM CPU(row) <-> GPU(column) (ns)
           0         1
 0    750.20    760.40

SUM host_device_latency_sm 1510.60
)";

// The same test as an nvbandwidth version before the SUM line printed it.
inline const std::string kNvbandwidthOld = R"(Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
          0         1
0      26.05     25.88
)";

// superbench cublaslt_gemm runs, each after its command line.
inline const std::string kCublasLt =
    "/opt/superbench/bin/cublaslt_gemm -m 4096 -n 4096 -k 4096 -b 0 -w 20 -i 50 -t fp8e4m3\n"
    "4096\t4096\t4096\t0\t118.261002\t1162.092407\n"
    "/opt/superbench/bin/cublaslt_gemm -m 8192 -n 8192 -k 8192 -b 0 -w 20 -i 50 -t fp8e4m3\n"
    "8192\t8192\t8192\t0\t852.479980\t1289.792603\n"
    "/opt/superbench/bin/cublaslt_gemm -m 8192 -n 8192 -k 8192 -b 0 -w 20 -i 50 -t bf16\n"
    "8192\t8192\t8192\t0\t1701.632080\t646.155457\n";

}  // namespace fathom::calib::test
