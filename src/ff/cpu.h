/* Processor features that select the field arithmetic's code path. Set once
 * before main() runs and read-only afterwards. */
#ifndef CUZK_FF_CPU_H
#define CUZK_FF_CPU_H

/* Non-zero when the processor has BMI2 (MULX) and ADX (ADCX/ADOX), unless the
 * environment variable CUZK_NO_ASM is set (to test and time the portable path). */
extern int cpu_has_adx;

#endif
