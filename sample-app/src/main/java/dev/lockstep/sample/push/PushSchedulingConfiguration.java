package dev.lockstep.sample.push;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Turns on {@code @Scheduled}; {@code sample.push.cron: "-"} switches the push job off. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class PushSchedulingConfiguration {
}
