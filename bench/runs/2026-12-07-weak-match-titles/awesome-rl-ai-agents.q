judged-en	training a model to run Python code in the middle of solving math problems, optimized with reinforcement learning
judged-en	systems that decouple rollout generation from gradient updates to scale policy optimization of language models across many GPUs
judged-en	making group-normalized policy gradient more stable by changing how ratios are clipped or aggregated
judged-en	skipping prompts whose sampled answers are all right or all wrong to avoid wasted rollouts
judged-en	sending easy queries to a small model and hard ones to a large model to save money
judged-en	agents that imagine what happens after an action using a learned environment simulator before committing
judged-en	spreading the end-of-episode reward back to individual steps of a long agent trajectory
judged-en	several language models trained together with RL so they cooperate better
judged-en	test suites measuring how accurately models choose and call external APIs
judged-en	agents that edit their own implementation to improve themselves over iterations
judged-zh	用强化学习训练大模型在推理中调用搜索引擎回答多跳问题
judged-zh	没有标注答案时，用多次采样结果的一致性当作奖励，在测试数据上继续训练模型
judged-zh	用基于规则的奖励做强化学习，提升模型在屏幕截图上定位控件和预测界面操作的能力
judged-zh	直接用偏好数据优化策略、不需要单独奖励模型的对齐方法及其变体
judged-zh	缩短思维链、按预算控制推理时生成的 token 数量
judged-zh	大模型智能体的长期记忆怎样组织、写入和更新
judged-zh	用强化学习让模型修复真实代码仓库中的缺陷，解决软件工程任务
judged-zh	大模型做形式化数学定理证明的训练方法
judged-zh	不经过训练，直接用多模态大模型看屏幕去操作手机或网页
judged-zh	利用测试用例或执行反馈构造奖励，强化代码生成模型
judged-mixed	用 RL 训练多轮交互 agent 时如何做 credit assignment
judged-mixed	视觉语言模型的 policy optimization，强化多模态推理和感知
judged-mixed	agent 在运行时自己写代码生成新的 action 或工具
judged-mixed	支持多轮 tool 调用的 agentic RL 训练框架
judged-mixed	减少不必要的 tool call，在成本和准确率之间权衡
judged-en	prompting an LLM to alternate free-form thoughts with actions like Wikipedia lookups, with no fine-tuning involved
judged-en	pairing a small fine-tuned model for quick reactive moves with a large LLM called only for deliberate planning in interactive text games
judged-en	forecasting how well a candidate agentic workflow will do without executing it, to make workflow search cheaper
judged-en	training a model with RL to reformulate search queries, rewarded by how many relevant documents the retriever brings back
judged-en	one end-to-end vision-language model that reads raw screenshots and emits mouse and keyboard actions, instead of a prompted GPT-4 pipeline
judged-en	handling inputs longer than the context window by passing notes along a sequence of worker LLMs to a final manager
judged-en	an agent that learns an environment's transition rules by writing and debugging a Python program from its interactions
judged-en	does very long RL training let a model solve problems the base model never could, and how to keep it from stalling
judged-en	blending a supervised loss on expert demonstrations into on-policy RL with a weight that shifts during training
judged-en	discarding RLHF samples whose reward-model scores are probably noisy before the PPO update
judged-en	GRPO normalization by response length and reward standard deviation biases the optimizer toward long wrong answers
judged-en	breaking a task into a dependency graph of subtasks so independent pieces can run concurrently
judged-en	curbing invalid or hallucinated action sequences in agent planning by consulting explicit knowledge about which actions are allowed
judged-en	which steps of expert agent trajectories are worth imitating, and repairing the steps where a trajectory drifts off course
judged-en	RL for an LLM that works with a simulated human partner over many turns on backend coding or web page design
judged-zh	让智能体把失败经验总结成文字反思存起来，下次尝试时参考，而不更新模型参数
judged-zh	用模型自身的知识模拟搜索引擎返回结果来做强化学习训练，省去调用真实搜索接口的开销
judged-zh	不训练价值网络，而是从中间步骤重新采样多条续写来估计每一步的价值
judged-zh	题目太难、所有采样都答错时，给模型提供部分参考解答作为提示，按难度自适应调整训练
judged-zh	由规划者拆解任务、再分派给多个执行者智能体的系统，以及怎样给各个执行者分配子任务
judged-zh	系统梳理大模型智能体强化学习研究现状的综述
judged-zh	智能体在拿不准时主动向人类专家求助，并用强化学习学会什么时候该求助
judged-zh	评测通用智能助手综合能力的基准，题目需要浏览网页、理解多模态内容并多步使用工具
judged-zh	把多次采样中只要有一次答对就算成功作为奖励，以鼓励探索、防止策略过早收敛
judged-zh	同时兼顾有用性、无害性等多个目标的偏好对齐，而不是只用单一奖励
judged-mixed	在 WebArena 这类真实网站环境里，用 online RL 直接训练浏览器操作 agent，跨多个 step 交互
judged-mixed	tool calling 的 reward 该怎么设计：格式分、工具名匹配、参数是否正确
judged-mixed	multi-turn agent RL 训练中 reward 先涨后崩、回复变得千篇一律，这种不稳定怎么诊断和缓解
judged-mixed	process reward 容易被 reward hacking，只在最终答案正确时才奖励推理过程
judged-mixed	提升 RLVR 中 rollout 采样效率的方法，比如共享前缀的树状生成，或按题目难度分配采样数
judged-mixed	针对推理中具体出错的那一步构造偏好对来做 preference optimization，提升长链数学推理
judged-mixed	从 systems 角度分析 agent 推理的 latency、能耗和实际花费
judged-mixed	不微调 LLM 本身，而是迭代改进 agent 可调用的 function 集合来提升下游任务表现
judged-mixed	让 agent 用 Jupyter notebook 式的代码执行作为 action，再用 RL 训练成通用 agent
judged-mixed	能在三维点云场景里理解物体、回答问题并执行机器人操作的 multimodal agent
off	protein folding with diffusion models
off	predicting stock prices from financial news sentiment
off	image segmentation of brain MRI scans
off	speech recognition for low-resource languages
off	graph neural networks for molecule property prediction
off	forecasting wildfire spread from satellite images
off	learned cost models for database query optimization
off	neural image compression codecs
off	music genre classification from audio
off	detecting traffic signs for autonomous driving
off	recommender systems for e-commerce click-through prediction
off	knowledge distillation for compressing BERT
off	蛋白质结构预测
off	股票价格预测
off	医学图像分割
off	低资源语言的语音识别
off	分子性质预测的图神经网络
off	卫星图像中的森林火灾预测
off	数据库查询优化
off	神经图像压缩
off	音乐流派分类
off	电商推荐系统的点击率预估
off	用 diffusion model 做蛋白质折叠
off	基于 transformer 的股票预测
off	MRI 图像分割方法
off	graph neural network 预测分子性质
off	speech recognition 低资源语言
off	电商 recommender system 点击率
off	estimating crop yields from weather and soil data
off	detecting credit card fraud in transaction streams
off	predicting earthquake aftershocks from seismograph records
off	identifying bird species from recordings of their songs
off	sentiment analysis of product reviews
off	handwritten digit recognition with convolutional networks
off	spam filtering for email
off	estimating a person's age from a face photo
off	low-latency video compression for video conferencing
off	correcting systematic errors of numerical weather forecasts
off	农作物产量预测
off	信用卡欺诈检测
off	地震余震预测
off	鸟类鸣声识别
off	手写数字识别
off	垃圾邮件过滤
off	人脸年龄估计
off	商品评论情感分析
off	视频会议的低延迟视频压缩
off	数值天气预报的误差订正
off	用 CNN 做手写数字识别
off	credit card 交易的欺诈检测方法
off	基于 LSTM 的农作物产量预测
off	email spam 过滤
off	bird song 鸟类识别
off	face photo 人脸年龄估计
off	seismic 数据的地震余震预测
off	product review 情感分析
off	video conferencing 的低延迟压缩
off	weather forecast 数值模式订正
