// A bounded pipe of byte blocks from one producer thread to one consumer thread: the producer
// copies each block into a free buffer (waiting while all are in flight), the consumer takes them
// in order. Memory is the buffers, whatever the stream's length. Used to inflate an entry on one
// core while another hashes and scans what came out.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

namespace wc {

class BlockPipe {
 public:
  struct Block {
    std::vector<uint8_t> bytes;
    size_t size = 0;
  };

  BlockPipe(size_t buffers, size_t block_size) : storage_(buffers) {
    for (auto& b : storage_) {
      b.bytes.resize(block_size);
      free_.push_back(&b);
    }
  }

  // Producer: copies [p, p+n) into the pipe in blocks. Returns false when the pipe was closed by
  // the consumer (it wants no more).
  bool put(const uint8_t* p, size_t n) {
    while (n > 0) {
      Block* b = nullptr;
      {
        std::unique_lock<std::mutex> l(mu_);
        changed_.wait(l, [&] { return !free_.empty() || closed_; });
        if (closed_) return false;
        b = free_.front();
        free_.pop_front();
      }
      b->size = std::min(n, b->bytes.size());
      std::memcpy(b->bytes.data(), p, b->size);
      p += b->size, n -= b->size;
      {
        std::lock_guard<std::mutex> l(mu_);
        full_.push_back(b);
      }
      changed_.notify_all();
    }
    return true;
  }

  // Producer: no more blocks.
  void finish() {
    {
      std::lock_guard<std::mutex> l(mu_);
      finished_ = true;
    }
    changed_.notify_all();
  }

  // Consumer: the next block, or nullptr after finish() and the last block (or after close()).
  // Hand it back with done() before the next take().
  Block* take() {
    std::unique_lock<std::mutex> l(mu_);
    changed_.wait(l, [&] { return !full_.empty() || finished_ || closed_; });
    if (full_.empty() || closed_) return nullptr;
    Block* b = full_.front();
    full_.pop_front();
    return b;
  }
  void done(Block* b) {
    {
      std::lock_guard<std::mutex> l(mu_);
      free_.push_back(b);
    }
    changed_.notify_all();
  }

  // Either side: stop the pipe (the consumer wants no more, or the producer failed).
  void close() {
    {
      std::lock_guard<std::mutex> l(mu_);
      closed_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::vector<Block> storage_;
  std::deque<Block*> free_, full_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool finished_ = false, closed_ = false;
};

}  // namespace wc
