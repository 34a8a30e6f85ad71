//go:build unix && !linux

package main

import "syscall"

func setParentDeath(*syscall.SysProcAttr) {}
