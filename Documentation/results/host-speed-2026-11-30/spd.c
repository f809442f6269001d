#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void *work(void *a){volatile unsigned long x=0;double t0=now();unsigned long n=0;while(now()-t0<1.0){for(int i=0;i<100000;i++)x+=i;n++;}*(double*)a=n/(now()-t0);return 0;}
int main(int c,char**v){int k=atoi(v[1]);pthread_t th[8];double r[8];for(int i=0;i<k;i++)pthread_create(&th[i],0,work,&r[i]);for(int i=0;i<k;i++)pthread_join(th[i],0);for(int i=0;i<k;i++)printf("%.1f ",r[i]);printf("\n");return 0;}
