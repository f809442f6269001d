#!/usr/bin/env python3
# make-broken.py SRC DST: a copy of futex_lock.c in which every test's key
# expectation is wrong (one mutation per test or shared helper), to see
# each test fail once on a kernel that has the operations.
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()

def mut(func, old, new):
    global s
    start = s.index(func)
    i = s.index(old, start)
    s = s[:i] + new + s[i + len(old):]

M = [
 ("static bool test_unlock_free_eperm", "-EPERM);", "-ENOSYS);"),            # 1
 ("static bool uncontended", 'check_word("owned", &w, tid)', 'check_word("owned", &w, tid + 1)'),  # 2
 ("static bool test_edeadlk", "-EDEADLK);", "-EBUSY);"),                      # 3
 ("static bool test_unlock_non_owner_eperm", 'check_word("after EPERM", w, h->tid)', 'check_word("after EPERM", w, 0)'),  # 4
 ("static bool test_reserved_args_einval", "-EINVAL);", "-ENOSYS);"),        # 5
 ("static bool test_unaligned_einval", "sys_ret(futex_unlock(odd, 0)), -EINVAL)", "sys_ret(futex_unlock(odd, 0)), -EFAULT)"),  # 6
 ("static bool test_bad_timespec_einval", "-EINVAL);", "-ETIMEDOUT);"),      # 7
 ("static bool test_unlock_clock_realtime_enosys", "no_such_op_ret());", "-EPERM);"), # 8
 ("static bool test_efault", "sys_ret(futex_lock(ro, NULL, PRIV)),\n\t\t\t-EFAULT)", "sys_ret(futex_lock(ro, NULL, PRIV)),\n\t\t\t-EPERM)"),  # 9
 ("static bool trylock", 'check_word("after ETIMEDOUT", w, h->tid)', 'check_word("after ETIMEDOUT", w, h->tid | FUTEX_WAITERS)'),  # 10
 ("static bool contended", 'check_word("waiter asleep", w, tid | FUTEX_WAITERS)', 'check_word("waiter asleep", w, tid)'),  # 11, 12
 ("static bool contended", "locker_got_lock(l, 0)", "locker_got_lock(l, -EINTR)"),  # 13, 14 (and 11, 12)
 ("static bool test_unlock_wakes_waiters_in_turn", "locker_got_lock(l[i], 0)", "locker_got_lock(l[i], -EAGAIN)"),  # 15
 ("static bool robust_no_waiter", 'check_word("owner died", &rw->word, FUTEX_OWNER_DIED)', 'check_word("owner died", &rw->word, FUTEX_OWNER_DIED | FUTEX_WAITERS)'),  # 16
 ("static bool robust_waiter", "locker_got_lock(l, -EOWNERDEAD)", "locker_got_lock(l, 0)"),  # 17
 ("static bool test_dead_owner_esrch(", "NULL, 0), -ESRCH);", "NULL, 0), 0);"),  # 18
 ("static bool test_garbage_tid_esrch", 'check_word("after ESRCH", &w, 0x3ffffff0)', 'check_word("after ESRCH", &w, 0)'),  # 19
 ("static bool test_dead_owner_esrch_wakes_waiters", 'check_ret("lock waiter", l->ret, -ESRCH)', 'check_ret("lock waiter", l->ret, 0)'),  # 20
 ("static bool test_private_foreign_owner_esrch", "NULL, PRIV), -ESRCH);", "NULL, PRIV), -ETIMEDOUT);"),  # 21
 ("static bool shared_fork", "!= (u_int32_t)getpid())", "!= (u_int32_t)getppid())"),  # 22, 23
 ("static bool mx_check", "m->counter != (long)n * MX_ITERS", "m->counter != (long)n * MX_ITERS + 1"),  # 24-27
 ("static bool test_unlock_wait_top_wakes_lock_waiter", 'check_ret("FUTEX_WAIT", wt->ret, 0)', 'check_ret("FUTEX_WAIT", wt->ret, -EAGAIN)'),  # 28
 ("static bool test_requeue_lock_waiter_einval", "sys_ret(futex_requeue(a, b, 0, 1, PRIV)), -EINVAL)", "sys_ret(futex_requeue(a, b, 0, 1, PRIV)), 0)"),  # 29
 ("static bool test_signal_no_eintr", "locker_got_lock(l, 0)", "locker_got_lock(l, -EINTR)"),  # 30
]
for f, o, n in M:
    mut(f, o, n)
open(dst, 'w').write(s)
print("%d mutations" % len(M))
