import sys; sys.path.insert(0,'.')
from ranges import *
best=(0,0); bestv=(0,0)
for k in range(0,181):
    phi=np.radians(k*0.25)
    R=rot(T,phi)
    (mv,x,y),(md,x2,y2)=search(R,fade,fade1,n=161)
    if md>best[0]: best=(md,k*0.25)
    if mv>bestv[0]: bestv=(mv,k*0.25)
print('flow d/dx max %.7f at %.2f deg; value max %.8f at %.2f deg'%(best[0],best[1],bestv[0],bestv[1]))
