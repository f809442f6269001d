// SPDX-License-Identifier: GPL-2.0
// test_preload_cxx - C++ std::mutex family under libfutexlock-preload.so.
// libstdc++ 12 maps std::mutex to a PTHREAD_MUTEX_INITIALIZER mutex that
// is never destroyed, std::condition_variable::wait_for/wait_until(steady)
// to pthread_cond_clockwait(CLOCK_MONOTONIC), std::timed_mutex::try_lock_for
// to pthread_mutex_clocklock.  TAP; a hang guard of FL_PRELOAD_GUARD s.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>
#include <unistd.h>

using namespace std::chrono_literals;

static int n, fails;

static void check(bool ok, const char *what)
{
	n++;
	if (!ok)
		fails++;
	std::printf("%sok %d - %s\n", ok ? "" : "not ", n, what);
	std::fflush(stdout);
}

int main()
{
	const char *g = std::getenv("FL_PRELOAD_GUARD");

	alarm(g && std::atoi(g) > 0 ? std::atoi(g) : 30);
	std::printf("TAP version 13\n");

	{	// std::mutex: exclusion
		std::mutex m;
		long counter = 0;
		std::atomic<int> bad{0}, inside{0};
		std::vector<std::thread> t;

		for (int i = 0; i < 4; i++)
			t.emplace_back([&] {
				for (int k = 0; k < 20000; k++) {
					std::lock_guard<std::mutex> l(m);
					if (inside.exchange(1))
						bad++;
					counter++;
					inside = 0;
				}
			});
		for (auto &x : t)
			x.join();
		check(counter == 80000 && bad == 0, "std::mutex: 4 threads x 20000, exclusion");
	}
	{	// std::condition_variable queue, wait and wait_for (clockwait)
		std::mutex m;
		std::condition_variable cv;
		std::deque<int> q;
		long sum = 0;
		std::thread prod([&] {
			for (int i = 1; i <= 5000; i++) {
				std::lock_guard<std::mutex> l(m);
				q.push_back(i);
				cv.notify_one();
			}
		});
		std::thread cons([&] {
			for (int i = 1; i <= 5000; i++) {
				std::unique_lock<std::mutex> l(m);
				if (i & 1)
					cv.wait(l, [&] { return !q.empty(); });
				else
					while (!cv.wait_for(l, 1h, [&] { return !q.empty(); }))
						;
				sum += q.front();
				q.pop_front();
			}
		});
		prod.join();
		cons.join();
		check(sum == 5000L * 5001 / 2, "std::condition_variable: queue with wait and wait_for");
	}
	{	// wait_for times out on the steady clock, with the mutex held
		std::mutex m;
		std::condition_variable cv;
		std::unique_lock<std::mutex> l(m);
		auto dl = std::chrono::steady_clock::now() + 30ms;
		std::cv_status s = cv.wait_until(l, dl);

		check(s == std::cv_status::timeout && std::chrono::steady_clock::now() >= dl &&
		      l.owns_lock(), "std::condition_variable::wait_until(steady): timeout after the deadline");
		bool other = true;
		std::thread([&] { other = m.try_lock(); if (other) m.unlock(); }).join();
		check(!other, "... and the mutex is held after it");
	}
	{	// recursive_mutex, timed_mutex
		std::recursive_mutex r;
		r.lock();
		r.lock();
		r.unlock();
		bool got = true;
		std::thread([&] { got = r.try_lock(); if (got) r.unlock(); }).join();
		r.unlock();
		bool got2 = false;
		std::thread([&] { got2 = r.try_lock(); if (got2) r.unlock(); }).join();
		check(!got && got2, "std::recursive_mutex: held until the last unlock");

		std::timed_mutex tm;
		tm.lock();
		bool t1 = true, t2 = false;
		std::thread([&] { t1 = tm.try_lock_for(20ms); }).join();
		tm.unlock();
		std::thread([&] { t2 = tm.try_lock_for(1h); if (t2) tm.unlock(); }).join();
		check(!t1 && t2, "std::timed_mutex::try_lock_for: times out while held, succeeds when free");
	}
	std::printf("1..%d\n", n);
	return fails ? 1 : 0;
}
