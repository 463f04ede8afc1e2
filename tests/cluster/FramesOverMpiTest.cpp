// Frames of remote types over MPI, between every pair of ranks: the bytes the
// process transport will carry (coreactor/Remote.hpp), sent in batches with
// MPI_Isend and taken with MPI_Recv, with exact accounting. ctest runs it
// under `mpirun -np 2` and `-np 3` (tests/CMakeLists.txt).
//
// Each rank sends kFrames messages to every other rank, in batches of
// kBatch frames per MPI message, alternating a trivially copyable type and
// a cereal one, each carrying (sender, sequence). Each rank checks that it
// received exactly kFrames from each peer, in order, with the right values,
// and that an unregistered type is refused at the send. Exit code 0 on
// success; any failure prints the reason and aborts every rank.
#include <mpi.h>

#include <cereal/types/string.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "coreactor/Remote.hpp"

namespace {

using namespace coreactor;

constexpr int kFrames = 20'000;
constexpr int kBatch = 64;
constexpr int kTag = 7;

struct Tally {
  std::int32_t from;
  std::int32_t seq;
};

struct Note {
  std::int32_t from = 0;
  std::int32_t seq = 0;
  std::string text;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(from, seq, text);
  }
};

struct NeverRegistered {
  int n;
};

[[noreturn]] void fail(int rank, const std::string& why) {
  std::fprintf(stderr, "rank %d: %s\n", rank, why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) fail(rank, "run me with at least 2 ranks");
  // Registered in a different order on each rank: the ids must not care.
  if (rank % 2 == 0) {
    registerRemoteType<Tally>("cluster-test.Tally");
    registerRemoteType<Note>("cluster-test.Note");
  } else {
    registerRemoteType<Note>("cluster-test.Note");
    registerRemoteType<Tally>("cluster-test.Tally");
  }
  try {
    std::string ignored;
    wire::encode(Message(NeverRegistered{1}), ignored);
    fail(rank, "an unregistered type was encoded");
  } catch (const std::system_error& e) {
    if (e.code() != Error::ErrNotSerializable) fail(rank, "wrong error: " + e.code().message());
  }

  // Send everything to every peer (non-blocking), then receive from all.
  std::vector<std::string> batches;
  std::vector<MPI_Request> requests;
  batches.reserve(static_cast<std::size_t>((size - 1) * (kFrames / kBatch + 1)));
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    std::string batch;
    for (int seq = 0; seq < kFrames; ++seq) {
      if (seq % 2 == 0) {
        wire::encode(Message(Tally{rank, seq}), batch);
      } else {
        wire::encode(Message(Note{rank, seq, "note " + std::to_string(seq)}), batch);
      }
      if ((seq + 1) % kBatch == 0 || seq + 1 == kFrames) {
        batches.push_back(std::move(batch));
        batch.clear();
        requests.emplace_back();
        const std::string& out = batches.back();
        MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_BYTE, peer, kTag, MPI_COMM_WORLD,
                  &requests.back());
      }
    }
  }

  std::vector<int> next(static_cast<std::size_t>(size), 0);
  long received = 0;
  const long expected = static_cast<long>(size - 1) * kFrames;
  std::string buffer;
  while (received < expected) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    buffer.resize(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    std::string_view rest = buffer;
    while (!rest.empty()) {
      std::size_t used = 0;
      Message m = wire::decode(rest, used);
      rest.remove_prefix(used);
      int from = -1;
      int seq = -1;
      if (const Tally* t = m.get<Tally>()) {
        from = t->from;
        seq = t->seq;
        if (seq % 2 != 0) fail(rank, "a Tally with an odd sequence");
      } else if (const Note* n = m.get<Note>()) {
        from = n->from;
        seq = n->seq;
        if (n->text != "note " + std::to_string(seq)) fail(rank, "a Note's text changed");
      } else {
        fail(rank, "a frame of an unexpected type: " + std::string(m.typeName()));
      }
      if (from != status.MPI_SOURCE) fail(rank, "a frame names the wrong sender");
      if (seq != next[static_cast<std::size_t>(from)]) {
        fail(rank, "from rank " + std::to_string(from) + ": sequence " + std::to_string(seq) +
                       " where " + std::to_string(next[static_cast<std::size_t>(from)]) +
                       " was due");
      }
      ++next[static_cast<std::size_t>(from)];
      ++received;
    }
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (int peer = 0; peer < size; ++peer) {
    if (peer != rank && next[static_cast<std::size_t>(peer)] != kFrames) {
      fail(rank, "from rank " + std::to_string(peer) + ": " +
                     std::to_string(next[static_cast<std::size_t>(peer)]) + " frames");
    }
  }
  long total = 0;
  MPI_Reduce(&received, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const long sent = static_cast<long>(size) * (size - 1) * kFrames;
    std::printf("%d ranks: %ld frames sent, %ld received\n", size, sent, total);
    if (total != sent) fail(rank, "frames lost");
  }
  MPI_Finalize();
  return 0;
}
