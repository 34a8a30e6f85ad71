sed -e 's/^package bounded/package main/' ../../../estimate.go | python3 -c "
import sys,re
s=sys.stdin.read()
i=s.index('const (\n\tmilli  = 1000')
s=s[:i]+'var'+s[i+5:]
s=s.replace('milli  = 1000','milli int64 = 1000').replace('safety = 105','safety int64 = 105')
s=re.sub(r'\n\t(long\w+)\s*= (\d+)', r'\n\t\1 int32 = \2', s)
s=re.sub(r'\n\t(cost\w+)\s*= (\d+)', r'\n\t\1 int64 = \2', s)
def ptr(m):
    return m.group(1)+'*'+m.group(2)+'{'+', '.join('&'+x.strip() for x in m.group(3).split(','))+'}'
s=re.sub(r'(longAt     = \[\.\.\.\])(int32)\{([^}]*)\}', ptr, s)
s=re.sub(r'(costLongOf = \[\.\.\.\])(int64)\{([^}]*)\}', ptr, s)
s=re.sub(r'(?<![\w*])longAt\[', '*longAt[', s)
s=re.sub(r'(?<![\w*])costLongOf\[', '*costLongOf[', s)
s=s.replace('*longAt     = [...]','longAt     = [...]').replace('*costLongOf = [...]','costLongOf = [...]')
print(s)" > est.go
