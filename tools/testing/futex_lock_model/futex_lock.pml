/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futex_lock.pml - SPIN model of the FUTEX_LOCK / FUTEX_LOCK_ADAPTIVE /
 * FUTEX_UNLOCK word protocol (kernel/futex/lock.c), v2 as applied and the
 * v3 design, one file: -DV2 or -DV3 (see README.md and run.sh).
 *
 * What is modelled
 * ----------------
 * The futex word: owner TID (wtid, 0 = free), FUTEX_WAITERS (wW) and
 * FUTEX_OWNER_DIED (wOD).  The hash bucket: the queue of lock waiters
 * (FIFO, equal priorities: plist appends), the spinner slot
 * hb->lock_spinner (slot), the hb lock.  Three tasks:
 *
 *   O (TID 1)  owns the lock at the start; user space only: unlocks
 *              (cmpxchg TID -> 0, or FUTEX_UNLOCK when the word is not
 *              exactly its TID), re-takes a free word in user space
 *              (cmpxchg 0 -> TID, STEALS times at most), or dies owning it
 *              (robust list: the exit code writes OWNER_DIED, keeps W and,
 *              if W was set, wakes one waiter).
 *   P (TID 2)  FUTEX_LOCK (plain), then unlocks as O does.  May time out
 *              or take a signal restart (-ERESTARTNOINTR), P_EVENTS times.
 *   S (TID 3)  FUTEX_LOCK_ADAPTIVE, then unlocks or dies owning the lock.
 *              May time out, restart, or get a fatal signal (S_EVENTS
 *              times), its word accesses may fault (FAULTS times: in the
 *              spin loop, in the v2 leave, or a fault_in_user_writeable()
 *              failure = EFAULT), and while it is the optimistic spinner
 *              (not woken from the queue in this call) and does not own
 *              the word it may be preempted FOR EVER at each preemption
 *              point outside the hb lock: after registering in the slot
 *              and unlocking the hb lock (STOP_REG), after
 *              preempt_enable() at the end of the spin (STOP_LEAVE), and
 *              in v3 also while spinning with preemption disabled
 *              (STOP_SPIN: its vCPU preempted by the host, F9).  A
 *              task stopped for ever never runs again.  A woken waiter
 *              may be delayed (any interleaving) but always runs again:
 *              that is the ordinary wake-one behaviour of every mutex.
 *   W (TID 4)  only with FWAIT=1: FUTEX_WAIT on the held lock word (the
 *              misuse of N7), woken by FUTEX_UNLOCK or the robust exit as
 *              the top of the queue, or by its own timeout.
 *
 * The two designs (-DV2, -DV3)
 * ----------------------------
 * Shared: the word, FUTEX_UNLOCK (writes 0 and wakes the top, or hands
 * the lock to a due top; N7 fixed: a FUTEX_WAIT top also gets the first
 * lock waiter woken), the robust exit, taking a free word under the hb
 * lock (W if anybody is queued), the hand-off, timeouts and restarts.
 *
 * V2, lock.c as applied: a locker that finds a spinner registered in the
 * slot sleeps without setting W (relay sleeper: the spinner owes it).
 * The spinner registers under the hb lock, drops it - a preemption point
 * on preempt=full, before preempt_disable() (N2) - spins, unregisters
 * and, unless it faulted (N3.1), runs futex_lock_spin_leave() (take a
 * free word or set W; it can fault (N3.2), give up after 16 cmpxchg
 * failures (N3.3) or refuse a free word with a fatal signal pending
 * (N3.4)) before preempt_enable(); after a take it passes on.  Every
 * error exit passes on (N5).  N1_STUB=1: the old !CONFIG_SMP stub, which
 * registered and never cleared the slot.
 *
 * V3: nobody relies on the spinner.  Everybody who sleeps sets W first;
 * the slot only throttles spinning.  A waiter woken by FUTEX_UNLOCK, a
 * pass-on or the robust exit owes the next wake-up (owes[]): it takes a
 * free word with W if anybody is queued, spins taking TID|W, sets W to
 * sleep again, or passes on when it leaves with an error; a caller that
 * owes nothing passes nothing on.  The optimistic spinner takes
 * TID|(old W) and, stopping, blocks like everybody else.  A waiter handed
 * the lock with a fatal signal pending releases it and passes on (N4).
 *
 * Every hb-locked section of lock.c is one atomic step here.  That is
 * exact for what can be observed: the hb lock serialises the sections;
 * inside one, lock.c reads the word and then writes it with one cmpxchg
 * whose failure goes back to the start of the section (out_changed, no
 * side effect done yet), so a user-space or spinner write landing between
 * the read and the cmpxchg gives the same outcome as landing before the
 * section.  The only bounded retry loops (16 tries in
 * futex_lock_spin_leave() and futex_lock_pass_on_handoff()) are modelled
 * by their give-up outcome where it matters (LEAVE_GIVEUP, v2 N3.3).  The
 * spin loop is one nondeterministic choice, made at any time while the
 * other tasks run: take the free word, or stop (need_resched, signal,
 * deadline, owner not on a CPU), or fault.  Not modelled: owners dying
 * without a robust list (nobody is responsible by design: lockers find
 * ESRCH, sleepers wait for their timeout), EDEADLK (no task relocks),
 * priorities (one plist priority, so the queue is FIFO), other keys
 * sharing the bucket (they only make the slot busy more often, which
 * P_ADAPTIVE=1 covers), and the -EAGAIN/out_changed retries (no effect
 * beyond the atomic sections above).
 *
 * Properties
 * ----------
 * (1) Never two owners.  holds[t] is "t returned 0/-EOWNERDEAD from
 *     FUTEX_LOCK (or took the word in user space, or was handed it) and
 *     has not released it".  acquire() asserts that nobody else holds;
 *     every release (user-space unlock, FUTEX_UNLOCK, death) asserts that
 *     the word still names the holder, so a write that stole the word
 *     from its owner is caught too.
 *
 * (2) No sleeper stranded on a free lock.  Checked in every end state of
 *     the model, i.e. every state in which no task can make a step: every
 *     task that can run has run (the tasks' choices are all bounded, and
 *     each can stop doing more), the only tasks left are finished ones,
 *     ones stopped for ever and lock waiters asleep in the queue.  There,
 *
 *       no lock waiter is asleep in the queue without having been woken,
 *       unless the word is owned by a task that is stopped for ever.
 *
 *     Why this is the right formulation: in such a state nothing will ever
 *     happen again except timeouts, so a sleeper there is asleep on a lock
 *     that nobody obliged to wake it will ever release or wake it from (a
 *     word held by a live task with W set cannot be such a state: the
 *     owner can run and its unlock goes through FUTEX_UNLOCK, which wakes
 *     or hands over).  The exception is the owner itself stopped for ever:
 *     everybody waits for a preempted owner, by the nature of mutual
 *     exclusion, and the lock is not free.  No bookkeeping of who "owes"
 *     is trusted: the state is judged by what can still happen.  A
 *     sleeper's own timeout or signal is therefore allowed to fire only
 *     while some other task can still run (others_can_run()): firing it
 *     in the final state would hide exactly the lost wake-up, which in
 *     real life costs the whole timeout (or for ever without one).  Spin's
 *     own invalid-end-state check also runs (every blocked task must be
 *     at an end* label: asleep, or stopped for ever).
 *
 * (3) The hand-off bound.  lost[t] counts the wake-ups by FUTEX_UNLOCK or
 *     a pass-on after which t did not get the lock (it counts where lock.c
 *     does: going back to sleep, or leaving on a signal restart).  A
 *     waiter with lost >= THRESH ("due") is not woken to compete again:
 *     FUTEX_UNLOCK hands it the lock; a pass-on hands it a free word or
 *     sets W so that the owner's unlock comes to FUTEX_UNLOCK.  Asserted
 *     at every counted wake-up:
 *
 *       FUTEX_UNLOCK wakes only waiters with lost < THRESH;
 *       a pass-on wakes a due waiter only when it cannot read the word
 *       (the fault exit, futex_lock_pass_on_fault()) or finds it free
 *       with OWNER_DIED (futex_lock_pass_on_handoff() refuses that);
 *
 *     each counted wake-up adds at most one to lost, and each of those
 *     two cases needs a fault of a leaving caller or a robust owner
 *     death, so, asserted at each lost++:
 *
 *       lost[t] <= THRESH + MAXDEATH + FAULTS
 *
 *     The search reaches THRESH + 1 (a fault exit waking the due top)
 *     and no more; with FAULTS=0 it stays at THRESH.
 */

/* ---- configuration (cpp: spin -DNAME=VALUE) ---- */
#if !defined(V2) && !defined(V3)
#define V3
#endif
#ifndef THRESH
#define THRESH		1	/* futex_lock_handoff_threshold */
#endif
#ifndef STEALS
#define STEALS		2	/* user-space re-takes by O */
#endif
#ifndef MAXDEATH
#define MAXDEATH	1	/* robust owner deaths (O or S) */
#endif
#ifndef FAULTS
#define FAULTS		1	/* faults of S's word accesses */
#endif
#ifndef P_EVENTS
#define P_EVENTS	1	/* timeouts/restarts of P */
#endif
#ifndef S_EVENTS
#define S_EVENTS	1	/* timeouts/restarts/fatal signals of S */
#endif
#ifndef P_ADAPTIVE
#define P_ADAPTIVE	0	/* P calls FUTEX_LOCK_ADAPTIVE too */
#endif
#ifndef LOST_BOUND
#define LOST_BOUND	(THRESH + MAXDEATH + FAULTS)	/* property (3) */
#endif
#ifndef STOP_REG
#define STOP_REG	1	/* S may stop for ever after registering */
#endif
#ifndef STOP_LEAVE
#define STOP_LEAVE	1	/* S may stop for ever after preempt_enable() */
#endif
#ifndef STOP_SPIN
#ifdef V3
#define STOP_SPIN	1	/* S may stop for ever while spinning (vCPU preempted) */
#else
#define STOP_SPIN	0	/* v2 relies on preempt_disable() there (F9: vCPUs) */
#endif
#endif
#ifndef LEAVE_GIVEUP
#define LEAVE_GIVEUP	1	/* v2: futex_lock_spin_leave() gives up (N3.3) */
#endif
#ifndef UP
#define UP		0	/* !CONFIG_SMP: no spinning */
#endif
#ifndef N1_STUB
#define N1_STUB		0	/* v2 on UP with the old stub (N1): registers, never clears */
#endif
#ifndef FWAIT
#define FWAIT		0	/* a fourth task: FUTEX_WAIT on the lock word (N7) */
#endif
#ifndef N7_BUG
#define N7_BUG		0	/* FUTEX_UNLOCK before the N7 fix */
#endif
#ifndef ROBUST_FIX
#define ROBUST_FIX	0	/* the robust exit wakes a lock waiter behind a FUTEX_WAIT top */
#endif
#ifndef BROKEN
#define BROKEN		0	/* v3 negative controls, see README.md */
#endif

/* ---- tasks ---- */
#define O	1
#define P	2
#define S	3
#define WT	4	/* FUTEX_WAIT task, with FWAIT */
#define NT	5

/* task states */
#define RUN	0
#define SLEEP	1	/* in futex_wait_queue() */
#define DONE	2
#define STOPPED	3	/* preempted for ever */

/* pending events */
#define EV_NONE	0
#define EV_TMO	1
#define EV_SIG	2
#define EV_KILL	3

/* outcome of an hb-locked section */
#define ACT_ACQ		1
#define ACT_EXIT	2
#define ACT_RESTART	3
#define ACT_SPIN	4
#define ACT_SLEEP	5

/* ---- shared state ---- */
byte wtid;		/* the word: TID (0 = free) */
bit wW;			/* FUTEX_WAITERS */
bit wOD;		/* FUTEX_OWNER_DIED */
byte q[3];		/* queued waiters, q[0] first */
byte qn;
byte slot;		/* hb->lock_spinner (a TID, 0 = none) */
bit holds[NT];		/* property (1) */
bit woken[NT];		/* unqueued by a waker (not by itself) */
bit counted[NT];	/* unlock_woken || relay_woken */
bit handoff[NT];
bit owes[NT];		/* v3: this task owes the next wake-up */
byte lost[NT];
byte st[NT];
byte deaths;

hidden byte t_;
hidden byte more_;

#define others_can_run(me) \
	((me != O && st[O] == RUN) || \
	 (me != P && (st[P] == RUN || (st[P] == SLEEP && woken[P]))) || \
	 (me != S && (st[S] == RUN || (st[S] == SLEEP && woken[S]))) || \
	 (me != WT && (st[WT] == RUN || (st[WT] == SLEEP && woken[WT]))))

/* Task names in the trail (printf runs only in simulation and replay). */
#define NAME(t)		(t == O -> 'O' : (t == P -> 'P' : (t == S -> 'S' : 'W')))
#define WORD		wtid, wW, wOD

#define stranded(t)	(st[t] == SLEEP && !woken[t])

inline acquire(t)
{
	assert(holds[O] + holds[P] + holds[S] == 0);	/* (1) */
	holds[t] = 1
}

inline q_add(t)
{
	q[qn] = t;
	qn++
}

inline q_del_top()
{
	q[0] = q[1];
	q[1] = q[2];
	q[2] = 0;
	qn--
}

inline q_del(t)
{
	if
	:: q[0] == t -> q_del_top()
	:: q[0] != t && q[1] == t -> q[1] = q[2]; q[2] = 0; qn--
	:: q[0] != t && q[1] != t && q[2] == t -> q[2] = 0; qn--
	:: else -> skip
	fi
}

inline count_loss(t)
{
	if
	:: counted[t] ->
		counted[t] = 0;
		lost[t]++;
		assert(lost[t] <= LOST_BOUND)	/* (3) */
	:: else -> skip
	fi
}

/*
 * futex_lock_pass_on(): uvalW is "the word as the caller left it has a
 * TID and W" (0 when free or unknown); mayhand is uaddr != NULL.
 */
inline pass_on(uvalW, mayhand)
{
	if
	:: uvalW -> skip
#ifdef V2
	:: !uvalW && slot != 0 ->		/* a spinner owes them */
		printf("  pass-on: none (spinner %c registered)\n", NAME(slot))
	:: !uvalW && slot == 0 && qn == 0 -> skip
	:: !uvalW && slot == 0 && qn > 0 ->
#else
	:: !uvalW && qn == 0 -> skip
	:: !uvalW && qn > 0 ->
#endif
	    if
	    :: q[0] == WT ->
		/* not a lock waiter: wake the first lock waiter instead */
		if
		:: q[1] != 0 ->
			t_ = q[1]; q_del(t_); woken[t_] = 1; owes[t_] = 1;
			printf("  pass-on: top is FUTEX_WAIT, wakes %c\n", NAME(t_));
			t_ = 0
		:: else -> skip
		fi
	    :: else ->
		t_ = q[0];
		more_ = (qn > 1);
		if
		:: mayhand && lost[t_] >= THRESH && wtid != 0 && wW -> skip
		:: mayhand && lost[t_] >= THRESH && wtid != 0 && !wW -> wW = 1
		:: mayhand && lost[t_] >= THRESH && wtid == 0 && !wOD ->
			/* futex_lock_pass_on_handoff(): hand the free word over */
			wtid = t_; wW = more_;
			q_del_top(); woken[t_] = 1; handoff[t_] = 1;
			acquire(t_);
			printf("  pass-on: hands the free word to %c (lost %d)\n", NAME(t_), lost[t_])
		:: else ->
			/* (3): a due waiter is woken to compete only when the
			 * word could not be read or is free with OWNER_DIED */
			assert(lost[t_] < THRESH || !mayhand || (wtid == 0 && wOD));
			q_del_top(); woken[t_] = 1; counted[t_] = 1; owes[t_] = 1;
			printf("  pass-on: wakes %c\n", NAME(t_))
		fi;
		t_ = 0; more_ = 0
	    fi
	fi
}

/* An error exit of futex_lock(), under the hb lock. */
inline error_exit(me, uvalW, mayhand)
{
#ifdef V2
	pass_on(uvalW, mayhand);	/* every error exit passes on (N5) */
#else
	if
#if BROKEN == 2
	:: owes[me] -> skip		/* negative control: forgets to pass on */
#else
	:: owes[me] -> pass_on(uvalW, mayhand)
#endif
	:: else -> skip			/* owes nothing, passes nothing on */
	fi;
#endif
	owes[me] = 0
}

/* FUTEX_UNLOCK by the owner me (under the hb lock). */
inline futex_unlock(me)
{
	holds[me] = 0;
	if
	:: qn == 0 -> wtid = 0; wW = 0; wOD = 0;
		printf("%c: FUTEX_UNLOCK writes 0, nobody queued\n", NAME(me))
	:: qn > 0 ->
		t_ = q[0];
		more_ = (qn > 1);
		q_del_top();
		woken[t_] = 1;
		if
		:: t_ == WT ->
			/* not a lock waiter: W stays if more are queued */
			wtid = 0; wW = more_; wOD = 0;
			printf("%c: FUTEX_UNLOCK writes W=%d, wakes the FUTEX_WAIT task\n", NAME(me), wW);
			if
			:: more_ && !N7_BUG ->	/* and the first lock waiter (N7) */
				t_ = q[0]; q_del_top(); woken[t_] = 1; owes[t_] = 1;
				printf("  and wakes %c\n", NAME(t_))
			:: else -> skip
			fi
		:: t_ != WT && lost[t_] >= THRESH && BROKEN != 5 ->	/* hand-off */
			wtid = t_; wW = more_; wOD = 0;
			handoff[t_] = 1;
			acquire(t_);
			printf("%c: FUTEX_UNLOCK hands the lock to %c (lost %d): word %d W=%d\n",
			       NAME(me), NAME(t_), lost[t_], wtid, wW)
		:: t_ != WT && (lost[t_] < THRESH || BROKEN == 5) ->
			assert(lost[t_] < THRESH);	/* (3) */
			wtid = 0; wW = 0; wOD = 0;
			counted[t_] = 1; owes[t_] = 1;
			printf("%c: FUTEX_UNLOCK writes 0, wakes %c\n", NAME(me), NAME(t_))
		fi;
		t_ = 0; more_ = 0
	fi
}

/* Unlock: cmpxchg(TID -> 0) in user space, else FUTEX_UNLOCK. */
inline unlock(me)
{
	atomic {
		assert(wtid == me && holds[me]);	/* (1) */
		if
		:: !wW && !wOD -> wtid = 0; holds[me] = 0;
			printf("%c: unlocks in user space: word %d -> 0\n", NAME(me), me)
		:: else -> futex_unlock(me)
		fi
	}
}

/* The owner dies; the robust list cleanup (handle_futex_death()). */
inline robust_death(me)
{
	atomic {
		assert(wtid == me && holds[me]);	/* (1) */
		holds[me] = 0;
		deaths++;
		wtid = 0; wOD = 1;			/* keeps W */
		printf("%c: dies owning the lock; robust cleanup: word 0 W=%d OWNER_DIED\n",
		       NAME(me), wW);
		if
		:: wW && qn > 0 ->	/* futex_wake(uaddr, 1): the top, of any kind */
			t_ = q[0]; q_del_top(); woken[t_] = 1; owes[t_] = 1;
			printf("  robust cleanup wakes %c\n", NAME(t_));
			if
			:: ROBUST_FIX && t_ == WT && qn > 0 ->
				t_ = q[0]; q_del_top(); woken[t_] = 1; owes[t_] = 1;
				printf("  and wakes %c (ROBUST_FIX)\n", NAME(t_))
			:: else -> skip
			fi;
			t_ = 0
		:: else -> skip
		fi;
		st[me] = DONE
	}
}

proctype Owner()
{
	byte steals = STEALS;
hold:
	if
	:: deaths < MAXDEATH -> robust_death(O); goto done
	:: unlock(O)
	fi;
	if
	:: atomic { steals > 0 && wtid == 0 && !wW && !wOD ->
		steals--; wtid = O; acquire(O);
		printf("O: takes the free word in user space: 0 -> 1\n") }; goto hold
	:: goto done
	fi;
done:
	st[O] = DONE
}

#if FWAIT
/* FUTEX_WAIT(word, val) on the lock word while it is held (misuse). */
proctype Waiter()
{
	if
	:: atomic { wtid != 0 ->
		q_add(WT); woken[WT] = 0; st[WT] = SLEEP;
		printf("W: FUTEX_WAIT on the held word\n") }
	:: goto wdone
	fi;
end_wsleep:
	if
	:: woken[WT] -> skip
	:: atomic { !woken[WT] && others_can_run(WT) -> q_del(WT);
		printf("W: timeout or signal\n") }
	fi;
wdone:
	st[WT] = DONE
}
#endif

/* futex_lock(): P with adaptive = 0, S with adaptive = 1. */
proctype Locker(byte me; bit adaptive)
{
	bit may_spin, taken, prevW, wokenever;
	byte act, pend, evleft, faults;

	evleft = (me == S -> S_EVENTS : P_EVENTS);
	faults = (me == S -> FAULTS : 0);

call:
	atomic {
		/* a fresh struct futex_lock_waiter; lost is restored */
		may_spin = (adaptive && (!UP || N1_STUB));
		counted[me] = 0; woken[me] = 0; handoff[me] = 0; owes[me] = 0;
		pend = EV_NONE
	}

retry:
	/* futex_q_lock() .. retry_locked: .. futex_q_unlock(), one step */
	atomic {
		act = 0;
		if
		:: faults > 0 ->	/* read faults, fault_in_user_writeable() fails */
			faults--;
			printf("%c: word read faults, fault-in fails: -EFAULT\n", NAME(me));
			error_exit(me, 0, 0);
			act = ACT_EXIT
		:: true -> skip		/* (a fault that faults in again is a retry) */
		fi;
		if
		:: act != 0 -> skip
		:: act == 0 && wtid == 0 ->
			if
			:: me == S && pend == EV_NONE && evleft > 0 ->
				evleft--; pend = EV_KILL
			:: true -> skip
			fi;
			if
			:: pend == EV_KILL ->		/* -EINTR, uval = 0 */
				printf("%c: free word, fatal signal: -EINTR\n", NAME(me));
				error_exit(me, 0, 1);
				act = ACT_EXIT
			:: else ->			/* free: take it */
				wtid = me; wW = (qn > 0); wOD = 0;
				acquire(me);
				owes[me] = 0;
				printf("%c: takes the free word under the hb lock: %d W=%d\n",
				       NAME(me), me, wW);
				act = ACT_ACQ
			fi
		:: act == 0 && wtid != 0 ->
			if
			:: pend == EV_NONE && evleft > 0 ->
				evleft--;
				if
				:: pend = EV_TMO
				:: pend = EV_SIG
				:: me == S -> pend = EV_KILL
				fi
			:: true -> skip
			fi;
			if
			:: pend == EV_TMO || pend == EV_KILL ->
				if
				:: pend == EV_TMO ->
					printf("%c: word held by %c: -ETIMEDOUT\n", NAME(me), NAME(wtid))
				:: else ->
					printf("%c: word held by %c: fatal signal\n", NAME(me), NAME(wtid))
				fi;
				error_exit(me, wW, 1);
				act = ACT_EXIT
			:: pend == EV_SIG ->		/* -ERESTARTNOINTR */
				printf("%c: word held by %c: signal, -ERESTARTNOINTR\n",
				       NAME(me), NAME(wtid));
				error_exit(me, wW, 1);
				count_loss(me);		/* futex_lock_save_lost() */
				act = ACT_RESTART
			:: pend == EV_NONE && may_spin && slot == 0 ->
#if BROKEN != 6
				may_spin = 0;		/* once per wake-up */
#endif
				slot = me;		/* register */
				printf("%c: word held by %c: registers in the spinner slot, drops the hb lock\n",
				       NAME(me), NAME(wtid));
				act = ACT_SPIN
			:: else ->
				may_spin = 0;
				count_loss(me);
#ifdef V2
				if
				:: slot == 0 && !wW -> wW = 1
				:: else -> skip		/* relay sleeper if slot != 0 */
				fi;
#else
#if BROKEN == 3
				if
				:: !owes[me] -> wW = 1	/* negative control */
				:: else -> skip
				fi;
#else
				wW = 1;			/* everybody who sleeps sets W */
#endif
#endif
				printf("%c: word held by %c: queues and sleeps with word W=%d, slot %d\n",
				       NAME(me), NAME(wtid), wW, slot);
				owes[me] = 0;
				woken[me] = 0;
				q_add(me);
				st[me] = SLEEP;
				act = ACT_SLEEP
			fi
		fi
	}
	if
	:: act == ACT_ACQ -> goto acquired
	:: act == ACT_EXIT -> goto out
	:: act == ACT_RESTART -> goto call
	:: act == ACT_SPIN -> goto spin
	:: act == ACT_SLEEP -> goto sleep
	fi;

sleep:
end_sleep:
	if
	:: woken[me] ->
		printf("%c: runs again (woken, hand-off %d)\n", NAME(me), handoff[me])
	:: atomic { pend == EV_NONE && evleft > 0 && others_can_run(me) ->
		/* timeout or signal; maybe racing with a wake-up */
		evleft--;
		if
		:: pend = EV_TMO
		:: pend = EV_SIG
		:: me == S -> pend = EV_KILL
		fi;
		if
		:: !woken[me] -> q_del(me)		/* futex_unqueue() */
		:: else -> skip
		fi;
		printf("%c: event %d while asleep (1 timeout, 2 signal, 3 fatal signal)\n", NAME(me), pend) }
	fi;
	atomic {
		st[me] = RUN;
		if
		:: handoff[me] ->
#ifdef V3
			if
			:: pend == EV_KILL ->
				/* N4: release the word and pass on */
				assert(wtid == me && holds[me]);
				holds[me] = 0; wtid = 0; wW = 0; wOD = 0;
				owes[me] = 1;
				error_exit(me, 0, 1);
				act = ACT_EXIT
			:: else -> act = ACT_ACQ
			fi
#else
			act = ACT_ACQ
#endif
		:: !handoff[me] && woken[me] ->
			wokenever = 1;
			may_spin = (adaptive && (!UP || N1_STUB));
			act = 0
		:: else -> act = 0
		fi;
		woken[me] = 0
	}
	if
	:: act == ACT_ACQ -> goto acquired
	:: act == ACT_EXIT -> goto out
	:: else -> goto retry
	fi;

spin:
	/* registered in the slot, hb lock dropped */
#if N1_STUB
	goto retry;	/* the old !CONFIG_SMP stub: returns false, slot stays */
#endif
	if
	:: STOP_REG && adaptive && !wokenever ->		/* N2 window */
		printf("%c: PREEMPTED FOR EVER in futex_q_unlock(), registered, before preempt_disable()\n", NAME(me));
		goto stop
	:: true -> skip
	fi;
	/* preempt_disable(); spin on the owner */
	taken = 0;
	if
#if BROKEN == 4
	:: wtid == 0 ->		/* negative control: read, then a plain store */
	   atomic {
#else
	:: atomic { wtid == 0 ->	/* cmpxchg(free -> TID|...) */
#endif
		prevW = wW;
#ifdef V3
#if BROKEN == 1
		skip;		/* negative control: an owing spinner takes without W */
#else
		if
		:: owes[me] -> wW = 1	/* an owing spinner takes TID|W */
		:: else -> skip		/* TID|(old W) */
		fi;
#endif
#endif
		wtid = me; wOD = 0;
		acquire(me);
		owes[me] = 0;
		taken = 1;
		printf("%c: spin takes the free word: %d W=%d\n", NAME(me), me, wW) }
	:: atomic { faults > 0 -> faults--; slot = 0;
		printf("%c: spin: word read faults, unregisters\n", NAME(me)) }
#ifdef V2
		/* why == FAULT: the leave is skipped (N3.1) */
		goto spin_out
#endif
	:: STOP_SPIN && adaptive && !wokenever ->
		printf("%c: PREEMPTED FOR EVER while spinning (its vCPU), registered\n", NAME(me));
		goto stop
	:: printf("%c: spin stops without the lock\n", NAME(me))
		/* need_resched, signal, deadline, owner off CPU/gone */
	fi;
	slot = 0;	/* unregister */
#ifdef V2
	/* futex_lock_spin_leave(), before preempt_enable() */
	if
	:: !taken && qn > 0 ->
		atomic {
			if
			:: faults > 0 -> faults--		/* N3.2 */
				printf("%c: leave: word read faults, nothing done\n", NAME(me))
			:: LEAVE_GIVEUP ->			/* N3.3 */
				printf("%c: leave: 16 cmpxchg failures, gives up\n", NAME(me))
			:: wtid == 0 && me == S && pend == EV_NONE && evleft > 0 ->
				evleft--; pend = EV_KILL;	/* N3.4 */
				printf("%c: leave: free word, fatal signal: nothing done\n", NAME(me))
			:: wtid == 0 && pend == EV_KILL ->	/* N3.4 */
				printf("%c: leave: free word, fatal signal: nothing done\n", NAME(me))
			:: wtid == 0 && pend != EV_KILL ->
				prevW = wW;
				wtid = me; wOD = 0;
				acquire(me);
				taken = 1;
				printf("%c: leave takes the free word\n", NAME(me))
			:: wtid != 0 && wW -> skip
			:: wtid != 0 && !wW -> wW = 1;
				printf("%c: leave sets W\n", NAME(me))
			fi
		}
	:: else -> skip
	fi;
spin_out:
#endif
	/* preempt_enable() */
	if
	:: STOP_LEAVE && adaptive && !wokenever && !taken ->
		printf("%c: PREEMPTED FOR EVER after preempt_enable(), before the hb lock\n", NAME(me));
		goto stop
	:: true -> skip
	fi;
	if
	:: taken ->
		atomic {
#ifdef V2
			pass_on(prevW, 1);	/* the wake-up it took on */
#endif
			owes[me] = 0
		}
		goto acquired
	:: else -> goto retry
	fi;

acquired:
	/* 0 or -EOWNERDEAD: the critical section, then unlock or die */
	if
	:: me == S && deaths < MAXDEATH -> robust_death(me); goto out
	:: unlock(me)
	fi;
out:
	st[me] = DONE;
	goto end_done;
stop:
	st[me] = STOPPED;
end_stopped:
	false;
end_done:
	skip
}

init {
	atomic {
		wtid = O; holds[O] = 1;
		run Owner();
		run Locker(P, P_ADAPTIVE);
		run Locker(S, 1);
#if FWAIT
		run Waiter();
#else
		st[WT] = DONE;
#endif
	}
	/* Property (2), in every state where no task can make a step. */
	timeout ->
	printf("END: word %d W=%d OD=%d, queue [%d %d %d], slot %d, state O/P/S %d/%d/%d (0 run, 1 asleep, 2 done, 3 stopped), woken P/S %d/%d\n",
	       WORD, q[0], q[1], q[2], slot, st[O], st[P], st[S], woken[P], woken[S]);
	assert(!(stranded(P) || stranded(S)) ||
	       (wtid != 0 && st[wtid] == STOPPED))
}
