// treewalk.cc — deep call paths in C++ for the metric tree's invariants (t_analyze_tree.sh, mpi_cxx
// with clang++ and LLVM libomp): a class template's member functions 4-6 frames deep
// (Solver<T>::step -> phase -> work -> exchange -> MPI_Sendrecv), work called from two member
// functions, an MPI_Allreduce at the bottom of a recursive member function, a lambda, and OpenMP
// parallel regions inside a member function with an explicit barrier, a critical section and a
// loop's implicit barrier; computation between the calls, imbalanced over ranks and threads.
// Rank 0 prints "done".
#include <mpi.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace walk {

volatile double sink;

// Computation for us microseconds.
__attribute__((noinline)) void spin(int us)
{
    auto t0 = std::chrono::steady_clock::now();
    double x = 0;
    do {
        for (int i = 0; i < 200; i++)
            x += i * 1e-9;
    } while (std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count() < us);
    sink = x;
}

template <typename T> class Solver {
  public:
    Solver(int rank, int size) : rank_(rank), size_(size), field_(16, T(rank)) {}

    __attribute__((noinline)) void step(int it)
    {
        phase_a();
        phase_b();
        total_ += descend(2 + it);
        threads();
    }
    int total() const { return total_; }

  private:
    __attribute__((noinline)) void exchange(int us)
    {
        spin(us * (rank_ + 1));
        T w = 0;
        MPI_Sendrecv(field_.data(), 1, MPI_DOUBLE, (rank_ + 1) % size_, 1, &w, 1, MPI_DOUBLE,
                     (rank_ + size_ - 1) % size_, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        field_[0] += w;
    }
    __attribute__((noinline)) void work(int us)
    {
        spin(us);
        exchange(us);
        auto sync = [this]() { MPI_Barrier(MPI_COMM_WORLD); sink = rank_; };
        sync();
    }
    __attribute__((noinline)) void phase_a()
    {
        work(2000);
        spin(500);
    }
    __attribute__((noinline)) void phase_b()
    {
        spin(300);
        work(1000);
        sink = 1;
    }
    __attribute__((noinline)) int descend(int n)
    {
        int r;
        if (n > 0) {
            spin(200 * (rank_ + 1));
            r = descend(n - 1) + 1;
        } else {
            int v = rank_;
            MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        return r;
    }
    __attribute__((noinline)) void threads()
    {
#pragma omp parallel num_threads(2)
        {
            spin(omp_get_thread_num() ? 2000 : 400);
#pragma omp barrier
#pragma omp critical
            spin(600);
#pragma omp for schedule(static)
            for (int i = 0; i < 8; i++)
                spin(100 * (i + 1));
        }
        sink = 2;
    }

    int rank_, size_, total_ = 0;
    std::vector<T> field_;
};

} // namespace walk

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    walk::Solver<double> s(rank, size);
    for (int it = 0; it < 3; it++)
        s.step(it);
    walk::spin(1000);
    MPI_Finalize();
    if (rank == 0)
        std::printf(s.total() > 0 ? "done\n" : "wrong total\n");
    return 0;
}
