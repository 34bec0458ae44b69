// The memory, storage and host<->device fits: the Azure H100 files with their figures worked out
// by hand beside each check, a synthetic recovery of the storage model, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/fit/memory_fit.hpp"
#include "calibrate/fit/storage_fit.hpp"
#include "calibrate/fit/transfer_fit.hpp"
#include "calibrate/parsers/fio.hpp"
#include "calibrate/parsers/stream.hpp"
#include "calibrate/parsers/transfer.hpp"
#include "tests/calibrate/calibration_files.hpp"
#include "tests/support/fuzz_rng.hpp"

using fathom::calib::FioResult;
using fathom::calib::FioRuns;
using fathom::calib::fit_memory;
using fathom::calib::fit_storage;
using fathom::calib::fit_transfer;
using fathom::calib::MemoryFit;
using fathom::calib::StorageFit;
using fathom::calib::TransferDirection;
using fathom::calib::TransferFit;
using fathom::calib::test::data_path;

namespace {

const StorageFit& group(const std::vector<StorageFit>& fits, const std::string& direction, const std::string& access) {
  for (const StorageFit& f : fits) {
    if (f.direction == direction && f.access == access) return f;
  }
  FAIL("no group " << direction << " " << access);
  throw std::logic_error("unreachable");
}

FioResult fio_row(const std::string& rw, const std::string& direction, std::int64_t bs, double bytes_per_s) {
  FioResult r;
  r.test = rw;
  r.rw = rw;
  r.direction = direction;
  r.block_size_bytes = bs;
  r.iodepth = 32;
  r.numjobs = 2;
  r.bandwidth_bytes_per_s = bytes_per_s;
  return r;
}

}  // namespace

TEST_CASE("memory: the Azure H100 HBM fraction from STREAM kernels") {
  const auto stream = fathom::calib::parse_stream_csv(data_path("azure-nd-h100-v5/hbm.csv"));
  const MemoryFit m = fit_memory(stream, 3.35e12);
  // Copy 2.90, Mul 2.90, Add 2.97, Triad 2.97 TB/s of 3.35: 0.8657, 0.8657, 0.8866, 0.8866.
  CHECK(m.fraction == doctest::Approx((2.90 + 2.90 + 2.97 + 2.97) / 4 / 3.35));
  // Sample standard deviation 0.01207 over sqrt(4).
  const double sd = std::sqrt(4 * std::pow(0.035 / 3.35, 2) / 3);
  CHECK(m.fraction_uncertainty == doctest::Approx(sd / 2));
  REQUIRE(m.dot_fraction.has_value());
  CHECK(*m.dot_fraction == doctest::Approx(3.18 / 3.35));
  REQUIRE(m.kernels.size() == 5);
  CHECK(m.kernels[4].kernel == "Dot");
  CHECK_FALSE(m.kernels[4].in_fraction);
  CHECK(m.kernels[0].fraction == doctest::Approx(2.90 / 3.35));
  CHECK(m.memory == "hbm");
  CHECK(m.achievable_bytes_per_s() == doctest::Approx(2.935e12));
  CHECK(m.fit.value("bandwidth_fraction") == m.fraction);
  CHECK(m.fit.predicted.size() == 4);
  CHECK(m.fit.max_abs_rel_error == doctest::Approx(0.035 / 2.90));  // Copy and Mul, 1.21% below
  CHECK_THROWS_AS(fit_memory(stream, 0), std::invalid_argument);
  fathom::calib::StreamBandwidth dot_only = stream;
  dot_only.kernels = {stream.kernels[4]};
  CHECK_THROWS_AS(fit_memory(dot_only, 3.35e12), std::invalid_argument);
}

TEST_CASE("storage: the Azure H100 fio runs, bandwidth from sequential rows, IOPS from the 1k rows") {
  const FioRuns runs = fathom::calib::parse_fio_csv(data_path("azure-nd-h100-v5/fio.csv"));
  const auto fits = fit_storage(runs);
  REQUIRE(fits.size() == 4);
  CHECK(fits[0].direction == "read");
  CHECK(fits[0].access == "sequential");
  CHECK(fits[1].access == "random");
  CHECK(fits[2].direction == "write");

  const StorageFit& seq = group(fits, "read", "sequential");
  CHECK(seq.iodepth == 255);
  CHECK(seq.numjobs == 4);
  CHECK(seq.rows.size() == 3);
  // 55.3 and 55.4 GB/s at 1M and 512k: the bandwidth branch, from 2 points.
  CHECK(seq.max_bandwidth_bytes_per_s == doctest::Approx(55.35e9).epsilon(1e-3));
  CHECK(seq.bandwidth_points == 2);
  CHECK(std::isfinite(seq.fit.sigma("max_bandwidth")));
  // 1.61 GB/s at 1k: 1.572 M IOPS, from 1 point, so no uncertainty.
  CHECK(seq.max_iops == doctest::Approx(1.61e9 / 1024).epsilon(1e-6));
  CHECK(seq.iops_points == 1);
  CHECK(std::isnan(seq.fit.sigma("max_iops")));
  CHECK(seq.bandwidth(1 << 20) == doctest::Approx(55.35e9).epsilon(1e-3));
  CHECK(seq.fit.max_abs_rel_error < 0.001);

  const StorageFit& rnd = group(fits, "read", "random");
  CHECK(rnd.rows.size() == 1);
  CHECK(rnd.max_bandwidth_bytes_per_s == seq.max_bandwidth_bytes_per_s);  // borrowed
  CHECK(rnd.bandwidth_source.find("from sequential read") != std::string::npos);
  CHECK(rnd.max_iops == doctest::Approx(1.27e9 / 1024).epsilon(1e-6));
  CHECK(rnd.iops_points == 1);
  CHECK(std::isnan(rnd.fit.sigma("max_iops")));

  const StorageFit& wseq = group(fits, "write", "sequential");
  CHECK(wseq.max_bandwidth_bytes_per_s == doctest::Approx(33.9e9).epsilon(1e-6));
  CHECK(wseq.max_iops == doctest::Approx(0.39e9 / 1024).epsilon(1e-6));
  const StorageFit& wrnd = group(fits, "write", "random");
  CHECK(wrnd.max_iops == doctest::Approx(0.37e9 / 1024).epsilon(1e-6));
}

TEST_CASE("storage: synthetic recovery within 3 sigma from 1%-noise runs across the knee") {
  const double B = 7.2e9, I = 1.1e5;  // the knee at 65 kB
  fathom::test::FuzzRng rng(77);
  FioRuns runs;
  runs.file = "synthetic";
  for (std::int64_t bs = 1024; bs <= (16 << 20); bs *= 2) {
    const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
    runs.results.push_back(
        fio_row("randread", "read", bs, std::min(B, I * bs) * (1 + std::sqrt(3.0) * 0.01 * (2 * u - 1))));
  }
  const auto fits = fit_storage(runs);
  REQUIRE(fits.size() == 1);
  const StorageFit& f = fits[0];
  CHECK(f.iodepth == 32);
  CHECK(f.bandwidth_points + f.iops_points == 15);
  CHECK(f.bandwidth_points >= 7);
  CHECK(f.iops_points >= 6);
  const double sb = f.fit.sigma("max_bandwidth"), si = f.fit.sigma("max_iops");
  REQUIRE(std::isfinite(sb));
  REQUIRE(std::isfinite(si));
  CHECK(sb < 0.01 * B);
  CHECK(si < 0.01 * I);
  CHECK(std::abs(f.max_bandwidth_bytes_per_s - B) <= 3 * sb);
  CHECK(std::abs(f.max_iops - I) <= 3 * si);
  CHECK(f.fit.max_abs_rel_error < 0.03);
}

TEST_CASE("storage: fio JSON's IOPS set the block size a row moved") {
  FioRuns runs;
  runs.file = "fio.json";
  runs.source = fathom::calib::FioSource::json;
  // bs says 4k, but fio moved 1M per I/O (bssplit); IOPS tells.
  FioResult big = fio_row("read", "read", 4096, 50e9);
  big.iops = 50e9 / (1 << 20);
  FioResult small = fio_row("read", "read", 4096, 2e9);
  small.iops = 2e9 / 4096;
  runs.results = {small, big};
  const auto fits = fit_storage(runs);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].max_bandwidth_bytes_per_s == doctest::Approx(50e9).epsilon(1e-6));
  CHECK(fits[0].max_iops == doctest::Approx(2e9 / 4096).epsilon(1e-6));
  CHECK_THROWS_AS(fit_storage(FioRuns{}), std::invalid_argument);
}

TEST_CASE("transfer: the Azure H100 host<->device bandwidth as fractions of PCIe 5.0 x16") {
  const auto t = fathom::calib::parse_transfer_csv(data_path("azure-nd-h100-v5/nvbandwidth.csv"));
  const TransferFit f = fit_transfer(t, 64e9);
  REQUIRE(f.tests.size() == 3);
  CHECK(f.tests[0].direction == TransferDirection::host_to_device);
  CHECK(*f.tests[0].pcie_fraction == doctest::Approx(51.0 / 64));
  CHECK(f.tests[1].direction == TransferDirection::device_to_host);
  CHECK(*f.tests[1].pcie_fraction == doctest::Approx(52.0 / 64));
  CHECK(f.tests[2].direction == TransferDirection::other);
  CHECK_FALSE(f.tests[2].pcie_fraction.has_value());
  CHECK(*f.host_to_device_fraction == doctest::Approx(0.796875));
  CHECK(*f.device_to_host_fraction == doctest::Approx(0.8125));
  CHECK(f.fit.value("device_to_host_fraction") == doctest::Approx(0.8125));
  CHECK(std::isnan(f.fit.sigma("host_to_device_fraction")));  // one test
  CHECK(f.fit.max_abs_rel_error == doctest::Approx(0).epsilon(1e-12));
  CHECK(fathom::calib::transfer_direction("host_to_device_memcpy_ce") == TransferDirection::host_to_device);
  CHECK(fathom::calib::transfer_direction("host_to_device_bidirectional_memcpy_ce") == TransferDirection::other);
  CHECK_THROWS_AS(fit_transfer(t, 0), std::invalid_argument);
}

TEST_CASE("transfer: nvbandwidth's matrix gives the per-device figure, not the SUM") {
  const auto t = fathom::calib::parse_nvbandwidth_text(
      "Running host_to_device_memcpy_ce.\n"
      "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0     55.00     53.00\n"
      "\n"
      "SUM host_to_device_memcpy_ce 108.00\n",
      "nv.txt");
  const TransferFit f = fit_transfer(t, 64e9);
  REQUIRE(f.tests.size() == 1);
  CHECK(f.tests[0].bytes_per_s == doctest::Approx(108e9));
  CHECK(f.tests[0].per_device_bytes_per_s == doctest::Approx(54e9));
  CHECK(*f.host_to_device_fraction == doctest::Approx(54.0 / 64));
  CHECK_FALSE(f.device_to_host_fraction.has_value());
}
