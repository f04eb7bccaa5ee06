/* An SDK application of ours for the timers' PWM mode, written as the SDK's own pwm.c is used:
   TIMER0 channel 0's toggle output on pad io24, 200 kHz at duty 0.5, then 0.25, then off, 100 us
   apart (usleep on mcycle). Prints what pwm_set_frequency answers. */
#include <stdio.h>

#include "fpioa.h"
#include "pwm.h"
#include "sleep.h"

int main(void) {
    fpioa_set_function(24, FUNC_TIMER0_TOGGLE1);
    pwm_init(PWM_DEVICE_0);
    double f = pwm_set_frequency(PWM_DEVICE_0, PWM_CHANNEL_0, 200000, 0.5);
    pwm_set_enable(PWM_DEVICE_0, PWM_CHANNEL_0, 1);
    printf("pwm: %d Hz\n", (int)f);
    usleep(100);
    f = pwm_set_frequency(PWM_DEVICE_0, PWM_CHANNEL_0, 200000, 0.25);
    printf("pwm: %d Hz\n", (int)f);
    usleep(100);
    pwm_set_enable(PWM_DEVICE_0, PWM_CHANNEL_0, 0);
    printf("pwm: off\n");
    return 0;
}
